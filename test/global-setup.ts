import { prepareTestDatabases } from './helpers/database.js';

/**
 * Once per vitest run, before any test file (vitest.config.ts): the suite's server and this run's
 * template database; the template is dropped when the run ends.
 */
export default function setup(): Promise<() => Promise<void>> {
  return prepareTestDatabases();
}
