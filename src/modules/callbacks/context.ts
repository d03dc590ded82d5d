import type { FastifyBaseLogger } from 'fastify';
import type { JobRunner } from '../../jobs/queue.js';
import type { DbContext } from '../../storage/db-context.js';
import type { Secrets } from '../../storage/secrets.js';
import type { Vault } from '../cards/index.js';
import type { ConnectionHealthSource } from '../processor-connections/index.js';
import type { CallbackHandlers } from './dispatch.js';

/**
 * What the callbacks module needs: the secret callbacks are signed with, the vault that seals what is
 * stored of them (and opens the processor connections' webhook secrets), the job runner that processes
 * them, and the handlers the other modules registered.
 */
export interface CallbacksContext extends DbContext {
  secrets: Secrets;
  logger: FastifyBaseLogger;
  jobs: JobRunner;
  vault: Vault;
  /** What the processors' webhook receivers read a merchant's connection with (its webhook secret). */
  connectionHealth: ConnectionHealthSource;
  /** Verified provider callbacks are dispatched here (dispatch.ts). */
  callbackHandlers: CallbackHandlers;
}
