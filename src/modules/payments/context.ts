import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { ProcessorRegistry } from '../../processors/registry.js';
import type { DbContext } from '../../storage/db-context.js';
import type { Secrets } from '../../storage/secrets.js';
import type { Vault } from '../cards/index.js';

/** What the payments module needs: the processors it calls, the vault that keeps card data, time-outs and secrets. */
export interface PaymentsContext extends DbContext {
  config: Config;
  secrets: Secrets;
  logger: FastifyBaseLogger;
  vault: Vault;
  processors: ProcessorRegistry;
}
