import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/server.js';
import { openStorage, type Storage } from '../../src/storage/db.js';
import { freshDatabaseUrl } from '../helpers/database.js';
import { card, CARDS } from '../payments/fixtures.js';
import { INSTANCE_LEASE_SECONDS } from '../../src/modules/instances/index.js';
import { buildOnce, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';

// A gateway process killed with SIGKILL in the middle of a payment, restarted on the same store, and
// a client retrying with the same idempotency key, as the issue "Prove it holds" reproduced it. The
// sandbox network runs here, in the test process, so its ledger outlives the gateway.
const SLOW = { timeout: 180_000 };
const CALLBACK_SECRET = randomBytes(24).toString('hex');
const BODY = card(CARDS.visa);

let sandbox: Sandbox;
let store: Record<string, string>;
let scratch: string;
const running: GatewayProcess[] = [];

beforeAll(async () => {
  buildOnce();
  sandbox = await startSandbox({ gatewayUrl: 'http://127.0.0.1:9', callbackSecret: CALLBACK_SECRET });
  scratch = mkdtempSync(path.join(tmpdir(), 'svc-gateway-crash-'));
  store = { DATA_DIR: scratch, DATABASE_URL: await freshDatabaseUrl() };
}, 180_000);
afterAll(async () => {
  for (const gateway of running) if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await sandbox?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function start(): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({
    NODE_ENV: 'development',
    PORT: '0',
    SEED_DEMO: 'true',
    SANDBOX_URL: sandbox.url,
    CALLBACK_SIGNING_SECRET: CALLBACK_SECRET,
    ...store,
  });
  running.push(gateway);
  sandbox.setGatewayUrl(gateway.banner.url);
  return gateway;
}

async function kill(gateway: GatewayProcess): Promise<void> {
  gateway.child.kill('SIGKILL');
  await gateway.exited;
}

async function call(url: string, method: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

/**
 * A client that retries with the same key until it has a decided answer, waiting as Retry-After says
 * while the key is still held (a restarted PostgreSQL-backed instance cannot know at once that the
 * holder died: it waits out the dead instance's lease).
 */
async function retryUntilDecided(url: string, apiKey: string, body: unknown, key: string) {
  for (;;) {
    const answer = await call(url, 'POST', apiKey, body, { 'x-idempotency-key': key });
    if (answer.status !== 409 || answer.body.error !== 'IDEMPOTENCY_KEY_IN_USE') return answer;
    await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after')) * 1000));
  }
}

/** How often the sandbox processor was asked to charge our reference: exactly what "charged once" means. */
async function sandboxCharge(reference: string) {
  const response = await fetch(`${sandbox.url}/acme/v1/payments?reference=${reference}`);
  return response.status === 200 ? ((await response.json()) as { status: string; amountRefunded: number }) : undefined;
}

/** The demo merchant's key: shown on the store's first start only. */
let apiKey: string;

describe('a payment interrupted by a crash, retried with the same idempotency key', () => {
  let gateway: GatewayProcess;

  /** The first payment of a payment request, once it exists (polled: the submission is in flight). */
  async function paymentOf(paymentRequestId: number): Promise<number> {
    for (let tries = 0; tries < 100; tries++) {
      const list = await call(`${gateway.banner.url}/payments?paymentRequestId=${paymentRequestId}`, 'GET', apiKey);
      if (!list.body.data) throw new Error(list.text);
      if (list.body.data[0]) return list.body.data[0].paymentId as number;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no payment for payment request ${paymentRequestId}`);
  }

  it(
    'resumes the committed payment: the original 200 with the same paymentId and card token, within seconds',
    SLOW,
    async () => {
      gateway = await start();
      apiKey = gateway.banner.demo!.apiKey;
      const request = await call(`${gateway.banner.url}/payment-requests`, 'POST', apiKey, {
        amount: 25,
        currency: 'EUR',
        reference: 'crash-1',
      });
      expect(request.status, request.text).toBe(200);
      const pay = `${gateway.banner.url}/payments/creditCard/acme/${request.body.paymentRequestId}`;
      const key = randomUUID();
      const body = BODY;

      // The processor charges, then holds its answer back; the gateway dies while it waits.
      const interrupted = call(pay, 'POST', apiKey, body, {
        'x-idempotency-key': key,
        'x-sandbox-hang-ms': '60000',
      }).catch((error: Error) => error);
      const paymentId = await paymentOf(request.body.paymentRequestId);
      for (let tries = 0; !(await sandboxCharge(`pay_${paymentId}`)) && tries < 100; tries++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await kill(gateway);
      expect(await interrupted).toBeInstanceOf(Error);

      gateway = await start();
      const back = Date.now();
      const retried = await retryUntilDecided(gateway.banner.url + new URL(pay).pathname, apiKey, body, key);
      const secondsToAnswer = (Date.now() - back) / 1000;

      expect(retried.status, retried.text).toBe(200);
      expect(retried.body).toMatchObject({
        paymentId,
        status: 'succeeded',
        paymentRequestId: request.body.paymentRequestId,
      });
      expect(retried.body.cardToken).toMatch(/^ctok_/);
      expect(secondsToAnswer).toBeLessThan(5);
      // Charged once: one payment at the gateway, one charge at the processor.
      const list = await call(
        `${gateway.banner.url}/payments?paymentRequestId=${request.body.paymentRequestId}`,
        'GET',
        apiKey,
      );
      expect(list.body.data.map((p: { paymentId: number }) => p.paymentId)).toEqual([paymentId]);
      expect((await sandboxCharge(`pay_${paymentId}`))!.status).toBe('captured');

      // From now on the key answers with that decided answer, byte for byte.
      const replay = await call(gateway.banner.url + new URL(pay).pathname, 'POST', apiKey, body, {
        'x-idempotency-key': key,
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(retried.text);
    },
  );

  it(
    'while its holder lives a key is busy (409, never stored); once the holder died the retry takes it over',
    SLOW,
    async () => {
      const request = await call(`${gateway.banner.url}/payment-requests`, 'POST', apiKey, {
        amount: 10,
        currency: 'EUR',
        reference: 'crash-2',
      });
      const pay = () => `${gateway.banner.url}/payments/creditCard/acme/${request.body.paymentRequestId}`;
      const key = randomUUID();
      const body = BODY;
      const inFlight = call(pay(), 'POST', apiKey, body, {
        'x-idempotency-key': key,
        'x-sandbox-hang-ms': '60000',
      }).catch((error: Error) => error);
      // Probed only once the first holds the key (its payment exists): a probe sent sooner could win the key.
      await paymentOf(request.body.paymentRequestId);
      const busy = await call(pay(), 'POST', apiKey, body, { 'x-idempotency-key': key });
      expect(busy.body.error, busy.text).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(busy.headers.get('retry-after')).toBe('1');
      // A holder that lives keeps it past the lease that ends a dead one's.
      await new Promise((resolve) => setTimeout(resolve, (INSTANCE_LEASE_SECONDS + 1) * 1000));
      const stillBusy = await call(pay(), 'POST', apiKey, body, { 'x-idempotency-key': key });
      expect(stillBusy.body.error, stillBusy.text).toBe('IDEMPOTENCY_KEY_IN_USE');
      await kill(gateway);
      await inFlight;

      gateway = await start();
      const back = Date.now();
      const retried = await retryUntilDecided(pay(), apiKey, body, key);
      expect(retried.status).toBe(200);
      expect(retried.body.status).toBe('succeeded');
      expect((Date.now() - back) / 1000).toBeLessThan(5);
    },
  );
});

describe('a refund interrupted by a crash, retried with the same idempotency key', () => {
  it(
    'asks the processor again for the refund that run committed: refunded once, at the gateway and the processor',
    SLOW,
    async () => {
      // The gateway the tests above left running goes: the demo key below is the new one's.
      for (const earlier of running) if (earlier.child.exitCode === null) await kill(earlier);
      let gateway = await start();
      apiKey = gateway.banner.demo?.apiKey ?? apiKey;
      const request = await call(`${gateway.banner.url}/payment-requests`, 'POST', apiKey, {
        amount: 30,
        currency: 'EUR',
        reference: 'crash-refund',
      });
      const paid = await call(
        `${gateway.banner.url}/payments/creditCard/acme/${request.body.paymentRequestId}`,
        'POST',
        apiKey,
        BODY,
      );
      expect(paid.body.status, paid.text).toBe('succeeded');
      const { paymentId } = paid.body as { paymentId: number };
      const refundPath = `/payments/${paymentId}/refunds`;
      const key = randomUUID();
      const body = { amount: 10 };

      // The processor refunds, then holds its answer back; the gateway dies while it waits.
      const interrupted = call(gateway.banner.url + refundPath, 'POST', apiKey, body, {
        'x-idempotency-key': key,
        'x-sandbox-hang-ms': '60000',
      }).catch((error: Error) => error);
      for (let tries = 0; (await sandboxCharge(`pay_${paymentId}`))?.status !== 'partially_refunded'; tries++) {
        if (tries > 200) throw new Error('the processor never received the refund');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await kill(gateway);
      expect(await interrupted).toBeInstanceOf(Error);

      gateway = await start();
      const retried = await retryUntilDecided(gateway.banner.url + refundPath, apiKey, body, key);
      expect(retried.status, retried.text).toBe(200);
      expect(retried.body).toMatchObject({ paymentId, amount: 10, status: 'succeeded' });
      // Refunded once: a second refund would have reserved (and the processor refunded) another 10.
      const payment = await call(`${gateway.banner.url}/payments/${paymentId}`, 'GET', apiKey);
      expect(payment.body).toMatchObject({ amountRefunded: 10 });
      expect(await sandboxCharge(`pay_${paymentId}`)).toMatchObject({ amountRefunded: 1000 });
      const replay = await call(gateway.banner.url + refundPath, 'POST', apiKey, body, { 'x-idempotency-key': key });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(retried.text);
    },
  );
});

describe('a creation interrupted between its commit and the storing of its answer', () => {
  const HOLD = 'hold_stored_answer';
  const CREATIONS = [
    {
      path: '/payment-requests',
      body: { amount: 12.5, currency: 'EUR', reference: 'crash-create' },
      list: '/payment-requests?reference=crash-create',
      idField: 'paymentRequestId',
    },
    {
      path: '/customers',
      body: { name: 'Crash Create', email: 'crash-create@example.com' },
      list: '/customers?email=crash-create@example.com',
      idField: 'id',
    },
  ];

  /** The gateway's store, opened with the project's own storage code. */
  async function withStore(work: (storage: Storage) => Promise<void>): Promise<void> {
    const storage = await openStorage({ databaseUrl: store.DATABASE_URL });
    try {
      await work(storage);
    } finally {
      await storage.close();
    }
  }

  /**
   * Holds the statement that stores the answer of the request with `key`: it sleeps in a trigger, after the
   * creating transaction committed, before the answer is on the key.
   */
  async function holdStoredAnswer(key: string): Promise<void> {
    await withStore(async ({ db }) => {
      await sql
        .raw(
          `create function ${HOLD}() returns trigger language plpgsql as $$
          begin perform pg_sleep(3600); return new; end $$`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger ${HOLD} before update of response_status on idempotency_keys for each row
          when (old.key = '${key}' and new.response_status is not null) execute function ${HOLD}()`,
        )
        .execute(db);
    });
  }

  async function releaseStoredAnswer(): Promise<void> {
    await withStore(async ({ db }) => {
      // A server finds out that a client died only when it next writes to it: the killed gateway's session
      // would sleep on in the trigger, holding the key's row.
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and wait_event = 'PgSleep'`.execute(db);
      await sql.raw(`drop trigger ${HOLD} on idempotency_keys`).execute(db);
      await sql.raw(`drop function ${HOLD}()`).execute(db);
    });
  }

  for (const creation of CREATIONS) {
    it(
      `POST ${creation.path}: the retry answers with the object the killed run created, and creates none`,
      SLOW,
      async () => {
        // The gateway the tests above left running goes: the demo key below is the new one's.
        for (const earlier of running) if (earlier.child.exitCode === null) await kill(earlier);
        const key = randomUUID();
        await holdStoredAnswer(key);
        let gateway = await start();
        apiKey = gateway.banner.demo?.apiKey ?? apiKey;
        const listed = async () => {
          const list = await call(gateway.banner.url + creation.list, 'GET', apiKey);
          expect(list.status, list.text).toBe(200);
          return (list.body.data as Array<Record<string, number>>).map((object) => object[creation.idField]);
        };

        const interrupted = call(gateway.banner.url + creation.path, 'POST', apiKey, creation.body, {
          'x-idempotency-key': key,
        }).catch((error: Error) => error);
        // Committed, its answer not stored: the object is listed (its answer waits in the trigger).
        let committed: number[] = [];
        for (let tries = 0; tries < 600; tries++) {
          if ((committed = await listed()).length > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(committed).toHaveLength(1);
        await kill(gateway);
        expect(await interrupted).toBeInstanceOf(Error);
        await releaseStoredAnswer();

        gateway = await start();
        const created = await listed();
        expect(created).toHaveLength(1);
        expect(created).toEqual(committed);
        const retried = await retryUntilDecided(gateway.banner.url + creation.path, apiKey, creation.body, key);
        expect(retried.status, retried.text).toBe(200);
        expect(retried.headers.get('idempotent-replayed')).toBeNull();
        expect(retried.body[creation.idField]).toBe(created[0]);
        expect(await listed()).toEqual(created);
        // From now on the key answers with it, byte for byte.
        const replay = await call(gateway.banner.url + creation.path, 'POST', apiKey, creation.body, {
          'x-idempotency-key': key,
        });
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.text).toBe(retried.text);
      },
    );
  }
});
