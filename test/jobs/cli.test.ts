import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { buildOnce, gatewayCli } from '../helpers/processes.js';

// `gateway jobs failed` and `gateway jobs retry`, run as the operator runs them (npm run gateway --).
const SLOW = { timeout: 180_000 };
const FAILED_AT = new Date('2026-03-01T10:00:00Z');

let dataDir: string;
let store: Record<string, string>;
const ids: Record<'merchants' | 'operators' | 'completed', number> = { merchants: 0, operators: 0, completed: 0 };

/** Runs `work` on the CLI's store. */
async function onStore<T>(work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage({ databaseUrl: store.DATABASE_URL });
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}

const jobRow = (id: number) =>
  onStore(({ db }) => db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow());

beforeAll(async () => {
  buildOnce();
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-jobs-cli-'));
  store = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabaseUrl() };
  await onStore(async ({ db }) => {
    const insert = (values: Record<string, unknown>) =>
      db
        .insertInto('jobs')
        .values({ run_at: FAILED_AT, max_attempts: 10, attempts: 10, ...values } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
    ids.merchants = (
      await insert({
        kind: 'payment.capture',
        merchant_id: 7,
        payload: JSON.stringify({ paymentId: 41, merchantId: 7 }),
        dedupe_key: 'payment.capture:41',
        last_error: 'The processor could not capture the payment',
        failed_at: FAILED_AT,
      })
    ).id;
    // A payload member that is not an id and an error naming a key are not printed as they are.
    ids.operators = (
      await insert({
        kind: 'callback.process',
        merchant_id: null,
        payload: JSON.stringify({ callbackEventId: 12, token: 'cst_not_for_the_terminal' }),
        dedupe_key: 'callback.process:12',
        last_error: 'refused svc_test_sk_0123456789abcdefghij',
        failed_at: FAILED_AT,
      })
    ).id;
    ids.completed = (
      await insert({
        kind: 'notice.send',
        merchant_id: 7,
        payload: JSON.stringify({ noticeId: 3 }),
        dedupe_key: 'notice.send:3',
        attempts: 1,
        completed_at: FAILED_AT,
      })
    ).id;
  });
}, 300_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('gateway jobs failed', () => {
  it('prints every failed job, the operator’s included, newest first, as one JSON object', SLOW, async () => {
    const result = await gatewayCli(['jobs', 'failed'], store);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const output = JSON.parse(result.stdout);
    expect(output).toEqual({
      data: [
        {
          id: ids.operators,
          kind: 'callback.process',
          merchantId: null,
          status: 'failed',
          attempts: 10,
          maxAttempts: 10,
          payload: { callbackEventId: 12 },
          lastError: 'refused svc_test_sk_[REDACTED]',
          runAt: FAILED_AT.toISOString(),
          failedAt: FAILED_AT.toISOString(),
          createdAt: expect.any(String),
        },
        expect.objectContaining({
          id: ids.merchants,
          kind: 'payment.capture',
          merchantId: 7,
          payload: { paymentId: 41, merchantId: 7 },
          lastError: 'The processor could not capture the payment',
        }),
      ],
      hasMore: false,
      nextCursor: null,
    });
    expect(result.stdout).not.toContain('cst_');

    const first = JSON.parse((await gatewayCli(['jobs', 'failed', '--limit', '1'], store)).stdout);
    expect(first).toMatchObject({ data: [{ id: ids.operators }], hasMore: true });
    const next = await gatewayCli(['jobs', 'failed', '--limit', '1', '--cursor', first.nextCursor], store);
    expect(JSON.parse(next.stdout)).toMatchObject({ data: [{ id: ids.merchants }], hasMore: false });
  });

  it('refuses a limit that is not a positive integer', SLOW, async () => {
    const result = await gatewayCli(['jobs', 'failed', '--limit', 'all'], store);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--limit must be an integer from 1 to 1000/);
  });
});

describe('gateway jobs retry', () => {
  it('makes a failed job due now with its attempts back to 0', SLOW, async () => {
    const started = Date.now();
    const result = await gatewayCli(['jobs', 'retry', '--id', String(ids.merchants)], store);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      id: ids.merchants,
      kind: 'payment.capture',
      status: 'pending',
      attempts: 0,
      failedAt: null,
    });
    const row = await jobRow(ids.merchants);
    expect(row).toMatchObject({ attempts: 0, failed_at: null, locked_until: null, completed_at: null });
    expect(row.run_at.getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(row.run_at.getTime()).toBeLessThanOrEqual(Date.now());

    const listed = JSON.parse((await gatewayCli(['jobs', 'failed'], store)).stdout);
    expect(listed.data.map((job: { id: number }) => job.id)).toEqual([ids.operators]);
  });

  it('answers an error for a job that has not failed, or does not exist, and changes nothing', SLOW, async () => {
    // One after another: each asks about the state the one before left.
    const completed = await gatewayCli(['jobs', 'retry', '--id', String(ids.completed)], store);
    const pending = await gatewayCli(['jobs', 'retry', '--id', String(ids.merchants)], store);
    const unknown = await gatewayCli(['jobs', 'retry', '--id', '999999'], store);
    const malformed = await gatewayCli(['jobs', 'retry', '--id', '1e3'], store);
    expect(completed.stderr).toMatch(`Job ${ids.completed} is completed; only a failed job can be retried`);
    expect(pending.stderr).toMatch(`Job ${ids.merchants} is pending; only a failed job can be retried`);
    expect(unknown.stderr).toMatch(/job 999999 not found/);
    expect(malformed.stderr).toMatch(/--id must be an integer/);
    for (const result of [completed, pending, unknown]) expect(result.code).toBe(1);
    expect(malformed.code).toBe(2);
    for (const result of [completed, pending, unknown, malformed]) expect(result.stdout).toBe('');
    expect(await jobRow(ids.completed)).toMatchObject({ attempts: 1, completed_at: FAILED_AT });
  });
});
