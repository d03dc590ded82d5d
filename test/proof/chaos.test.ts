import { beforeAll, expect, it } from 'vitest';
import { formatReport, runChaos, type ChaosOptions } from '../../proof/chaos/run.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { buildOnce } from '../helpers/processes.js';

/**
 * The short run of `npm run chaos` (docs/reliability.md): real processes (the sandbox network on its
 * own, the built gateway), clients retrying with their idempotency keys. Any broken invariant fails the
 * test with the run's report. The kill run uses the default store, the embedded PostgreSQL server in a
 * fresh data directory: each killed gateway leaves its server running, and the next start takes it over.
 */
beforeAll(() => buildOnce(), 120_000);

// Bounds against a hang, not timing targets: each run starts and stops real processes and reopens the
// store to check it.

const base = async (): Promise<Omit<ChaosOptions, 'scenario' | 'orders' | 'concurrency' | 'faults'>> => ({
  seed: 20260301,
  databaseUrl: await freshDatabaseUrl(),
  deadlineMs: 15_000,
  answerWithinMs: 5_000,
  settle: false,
});

it('gateway killed with kill -9 twice under load: every acknowledged answer holds, nothing is paid or charged twice', async () => {
  const report = await runChaos({
    ...(await base()),
    databaseUrl: undefined,
    scenario: 'kill',
    orders: 40,
    concurrency: 6,
    faults: 2,
  });
  const text = formatReport(report);
  expect(report.faultsInjected, text).toBeGreaterThanOrEqual(1);
  expect(report.checked, text).toBeGreaterThan(100);
  expect(report.violations, text).toEqual([]);
}, 180_000);

it('processor holding its answer past the time-out after charging: one charge, one payment, answers kept', async () => {
  const report = await runChaos({ ...(await base()), scenario: 'hang', orders: 6, concurrency: 6, faults: 0 });
  const text = formatReport(report);
  expect(report.checked, text).toBeGreaterThan(20);
  expect(report.violations, text).toEqual([]);
}, 150_000);

it('rolling restart of two instances under load (SIGTERM to one, started again, then the other): no acknowledged request lost', async () => {
  const report = await runChaos({
    ...(await base()),
    scenario: 'rolling',
    orders: 100,
    concurrency: 6,
    faults: 2,
    instances: 2,
  });
  const text = formatReport(report);
  expect(report.faultsInjected, text).toBe(2);
  expect(report.checked, text).toBeGreaterThan(100);
  expect(report.violations, text).toEqual([]);
}, 180_000);

it('Stripe hanging or answering 503 after charging, or 429, mid-load: the circuit opens, payments go on through the sandbox, nothing is charged twice', async () => {
  const report = await runChaos({
    ...(await base()),
    scenario: 'processor-faults',
    orders: 45,
    concurrency: 6,
    faults: 3,
    requestsPerFault: 8,
  });
  const text = formatReport(report);
  expect(report.faultsInjected, text).toBe(3);
  expect(report.checked, text).toBeGreaterThan(300);
  expect(report.paidThrough?.stripe, text).toBeGreaterThan(0);
  expect(report.paidThrough?.acme, text).toBeGreaterThan(0);
  expect(report.violations, text).toEqual([]);
}, 150_000);
