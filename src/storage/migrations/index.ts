import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_foundation.js';

/** Versioned migrations, applied in name order at start. Append only; never edit a released one. */
const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
