import type { DbContext } from '../../storage/db-context.js';
import type { Vault } from '../cards/index.js';
import type { ConnectionHealthSource } from './health.js';

/** What the processor-connections module needs: the store, the vault its credentials are sealed with, their health. */
export interface ProcessorConnectionsContext extends DbContext {
  vault: Vault;
  connectionHealth: ConnectionHealthSource;
}
