import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { DbContext } from '../../storage/db-context.js';
import type { Vault } from '../cards/index.js';

/** What the notifications module needs: webhook settings, the vault that seals signing secrets, a log for deliveries. */
export interface NotificationsContext extends DbContext {
  config: Config;
  logger: FastifyBaseLogger;
  vault: Vault;
}
