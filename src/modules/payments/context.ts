import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { CircuitBreaker } from '../../processors/circuit-breaker.js';
import type { ConnectorPool } from '../../processors/connectors.js';
import type { ProcessorRegistry } from '../../processors/registry.js';
import type { DbContext } from '../../storage/db-context.js';
import type { Secrets } from '../../storage/secrets.js';
import type { Vault } from '../cards/index.js';
import type { ProcessorConnectionsContext } from '../processor-connections/index.js';

/**
 * What the payments module needs: the processors it calls (the built-in sandbox ones, and the
 * connectors of merchants' connections with a circuit each), the vault that keeps card data, time-outs
 * and secrets.
 */
export interface PaymentsContext extends DbContext, Pick<ProcessorConnectionsContext, 'connectionHealth'> {
  config: Config;
  secrets: Secrets;
  logger: FastifyBaseLogger;
  vault: Vault;
  processors: ProcessorRegistry;
  connectors: ConnectorPool;
  circuits: CircuitBreaker;
}
