import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_LIMITS } from '../../src/http/json-body.js';
import { postSigned, providerCallback, sign } from '../callbacks/helpers.js';
import { expectNoLeak } from '../helpers/assertions.js';
import { startTestGateway, type CallResult, type TestGateway } from '../helpers/gateway.js';
import { ADYEN_TEST, STRIPE_TEST } from '../processor-connections/fixtures.js';

// Built as text: JSON.stringify itself overflows the stack on documents this deep.
const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const deepObject = (levels: number, leaf = '1') => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);
const manyMembers = (count: number) => `[${Array.from({ length: count }, () => '0').join(',')}]`;

let gw: TestGateway;
let apiKey: string;
let accessToken: string;
/** The owner's control-panel session: the cookie and CSRF token of the panel-only routes. */
let panel: Record<string, string>;
let operations: Array<{ method: string; path: string; security: string[] }>;
/** The merchant's processor connections by processor, whose webhook receivers take JSON bodies too. */
const connections: Record<string, string> = {};

beforeAll(async () => {
  gw = await startTestGateway();
  const merchant = await gw.merchant();
  apiKey = merchant.apiKey;
  accessToken = (await gw.call('POST', '/auth/login', { body: { email: merchant.email, password: merchant.password } }))
    .body.accessToken;
  const signedIn = await gw.call('POST', '/auth/session', {
    body: { email: merchant.email, password: merchant.password },
  });
  panel = {
    cookie: signedIn.headers.get('set-cookie')!.split(';')[0],
    'x-csrf-token': signedIn.body.csrfToken as string,
  };
  for (const body of [
    { processor: 'stripe', credentials: STRIPE_TEST, slots: ['h2h'] },
    { processor: 'adyen', credentials: ADYEN_TEST, slots: ['globex'] },
  ]) {
    const created = await gw.call('POST', '/processor-connections', { apiKey, body });
    connections[body.processor] = created.body.connectionId as string;
  }
  const spec = (await gw.call('GET', '/openapi.json')).body;
  operations = Object.entries<Record<string, any>>(spec.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.requestBody?.content?.['application/json'])
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, '1'),
        security: (op.security ?? []).flatMap((requirement: object) => Object.keys(requirement)),
      })),
  );
});
afterAll(() => gw?.close());

/** Sends raw JSON text the way a legitimate caller of the operation would: its credentials, a valid signature. */
function send(operation: { method: string; path: string; security: string[] }, raw: string): Promise<CallResult> {
  const processor = /^\/callbacks\/(stripe|adyen)\//.exec(operation.path)?.[1];
  if (processor) return sendToProcessorReceiver(processor, raw);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (operation.security.includes('ApiKey')) headers['x-api-key'] = apiKey;
  else if (operation.security.includes('AccessToken')) headers.authorization = `Bearer ${accessToken}`;
  else if (operation.security.includes('PanelSession')) Object.assign(headers, panel);
  else headers['x-webhook-signature'] = sign(gw, raw);
  return gw.call(operation.method, operation.path, { body: raw, headers });
}

/**
 * A processor's webhook, verified with a connection's secret: Stripe signs the whole body; Adyen signs
 * named fields of each item, so a genuine item can carry anything in its additionalData.
 */
function sendToProcessorReceiver(processor: string, raw: string): Promise<CallResult> {
  const path = `/callbacks/${processor}/${connections[processor]}`;
  if (processor === 'stripe') {
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', STRIPE_TEST.webhookSecret).update(`${t}.${raw}`).digest('hex');
    return gw.call('POST', path, { body: raw, headers: { 'stripe-signature': `t=${t},v1=${v1}` } });
  }
  const fields = ['PSP1', '', ADYEN_TEST.merchantAccount, 'pay_1', 100, 'EUR', 'AUTHORISATION', 'true'];
  const hmacSignature = createHmac('sha256', Buffer.from(ADYEN_TEST.hmacKey, 'hex'))
    .update(fields.join(':'))
    .digest('base64');
  const item =
    `{"NotificationRequestItem":{"pspReference":"PSP1","merchantAccountCode":"${ADYEN_TEST.merchantAccount}",` +
    `"merchantReference":"pay_1","amount":{"value":100,"currency":"EUR"},"eventCode":"AUTHORISATION",` +
    `"success":"true","additionalData":{"hmacSignature":"${hmacSignature}","extra":${raw}}}}`;
  return gw.call('POST', path, { body: `{"live":"false","notificationItems":[${item}]}` });
}

function expectTooComplex(res: CallResult, limit: 'depth' | 'members'): void {
  expect(res.status, res.text).toBe(400);
  expect(res.body).toMatchObject({
    code: 'VAL004',
    error: 'JSON_TOO_COMPLEX',
    details: { limit, max: JSON_LIMITS[limit] },
  });
  expectNoLeak(res);
}

describe('JSON bodies nested too deeply or too large in members', () => {
  it('finds the operations that take a JSON body in /openapi.json', () => {
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'POST /auth/login',
        'POST /callbacks/svc',
        'POST /callbacks/test/json',
        'PATCH /customers/1',
        'POST /payments/1/refunds',
      ]),
    );
    expect(operations.length).toBeGreaterThanOrEqual(10);
  });

  it('refuses 10,000-deep arrays and objects on every such operation with 400 JSON_TOO_COMPLEX, then /readyz is 200', async () => {
    for (const operation of operations) {
      for (const raw of [deepArray(10_000), deepObject(10_000)]) expectTooComplex(await send(operation, raw), 'depth');
    }
    expect((await gw.call('GET', '/readyz')).status).toBe(200);
  });

  it('refuses more members than the limit on every such operation', async () => {
    for (const operation of operations)
      expectTooComplex(await send(operation, manyMembers(JSON_LIMITS.members + 1)), 'members');
    expect((await gw.call('GET', '/readyz')).status).toBe(200);
  });

  it('accepts a body exactly at both limits, and stores the test callback as received', async () => {
    const atDepth = ` ${deepObject(JSON_LIMITS.depth - 1, '[ ]')}\n`;
    const ok = await gw.call('POST', '/callbacks/test/json', { body: atDepth });
    expect(ok.status, ok.text).toBe(200);
    expectTooComplex(
      await gw.call('POST', '/callbacks/test/json', { body: deepObject(JSON_LIMITS.depth, '[]') }),
      'depth',
    );
    const row = await gw.db
      .selectFrom('callback_events')
      .select(['payload', 'raw_body'])
      .where('source', '=', 'test/json')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(row.raw_body).toBe(atDepth);
    expect(row.payload).toEqual(JSON.parse(atDepth));

    const atMembers = manyMembers(JSON_LIMITS.members);
    expect((await gw.call('POST', '/callbacks/test/json', { body: atMembers })).status).toBe(200);
    // Brackets and commas inside strings are text, not structure.
    const inStrings = JSON.stringify({ eventId: 'evt_brackets', text: '[{,'.repeat(10_000) });
    expect((await gw.call('POST', '/callbacks/test/json', { body: inStrings })).body).toMatchObject({
      eventId: 'evt_brackets',
    });
  });

  it('refuses a validly signed provider callback whose providerData nests 8,000 objects, and the store stays writable', async () => {
    // The case that used to answer 200 {"duplicate":true} and store nothing.
    const raw = JSON.stringify(providerCallback({ providerData: 'X' })).replace('"X"', deepObject(8_000, '{}'));
    expectTooComplex(await postSigned(gw, '/callbacks/svc', raw), 'depth');

    const next = providerCallback();
    const accepted = await postSigned(gw, '/callbacks/svc', next);
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toEqual({ received: true, eventId: next.eventId });
    const stored = await gw.db
      .selectFrom('callback_events')
      .select(['raw_body'])
      .where('event_id', '=', next.eventId as string)
      .executeTakeFirstOrThrow();
    expect(stored.raw_body).toBe(JSON.stringify(next));
    expect((await gw.call('GET', '/readyz')).status).toBe(200);
  });

  it('stores form and query-string test callbacks as received, however bracket-laden', async () => {
    const form = `eventId=evt_form_deep&${'a['.repeat(5_000)}=${'['.repeat(10_000)}&x=${'{'.repeat(10_000)}`;
    const formAnswer = await gw.call('POST', '/callbacks/test/form', {
      body: form,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(formAnswer.status, formAnswer.text).toBe(200);
    const query = `eventId=evt_text_deep&x=${'['.repeat(5_000)}`;
    const textAnswer = await gw.call('GET', `/callbacks/test/text?${query}`);
    expect(textAnswer.status, textAnswer.text).toBe(200);
    const rows = await gw.db
      .selectFrom('callback_events')
      .select(['event_id', 'raw_body'])
      .where('event_id', 'in', ['evt_form_deep', 'evt_text_deep'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { event_id: 'evt_form_deep', raw_body: form },
      { event_id: 'evt_text_deep', raw_body: query },
    ]);
    expect((await gw.call('GET', '/readyz')).status).toBe(200);
  });
});
