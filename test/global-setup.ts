import { prepareTestDatabases } from './helpers/database.js';

/** Once per vitest run, before any test file (vitest.config.ts): the suite's server and template database. */
export default async function setup(): Promise<void> {
  await prepareTestDatabases();
}
