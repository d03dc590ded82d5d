import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_jobs.js';
import * as m0003 from './0003_payment_requests_customers.js';
import * as m0005 from './0005_idempotency.js';

/** Versioned migrations, applied in name order at start. Append only; never edit a released one. */
const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_jobs': m0002,
  '0003_payment_requests_customers': m0003,
  '0005_idempotency': m0005,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
