import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Each file starts its own gateway and database; two cores, two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    // A worker process keeps the modules it imported for its next file: importing the gateway's
    // modules anew for each file was a third of a pass. Every file still starts its own gateway and
    // database, and nothing of the gateway's is process-wide state a file could leave to the next.
    isolate: false,
    testTimeout: 30_000,
    // Set-up hooks start gateways and build fixtures for every route of /openapi.json; on two busy
    // cores that can take over a minute. A bound against hangs, not a timing target.
    hookTimeout: 180_000,
  },
});
