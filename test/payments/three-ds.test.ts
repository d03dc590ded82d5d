import { beforeAll, describe, expect, it } from 'vitest';
import { hmacHex } from '../../src/lib/crypto.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import {
  CARDS,
  PATHS,
  card,
  createRequest,
  decideChallenge,
  h2hCard,
  payer,
  waitForStatus,
  type PathName,
} from './fixtures.js';

const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

const SUCCESS_URL = 'https://shop.example/paid?order=42';
const FAILURE_URL = 'https://shop.example/failed';
const URLS = { successUrl: SUCCESS_URL, failureUrl: FAILURE_URL };

/** Submits a card; answers the payment once it asks for the challenge (globex says so by callback). */
async function challenged(path: PathName, number: string, extra: Record<string, unknown> = {}) {
  const id = await createRequest(gw, m);
  const body = path === 'h2h' ? { ...h2hCard(number), ...extra } : { ...card(number), ...extra };
  const res = await gw.call('POST', PATHS[path](id), { apiKey: m.apiKey, body });
  expect(res.status, res.text).toBe(200);
  const payment = res.body.status === 'pending' ? await waitForStatus(gw, m, res.body.paymentId, 'pending') : res.body;
  return { id, answer: res.body, payment };
}

/** The payer on the ACS page (served under the gateway's address), then back through the gateway. */
async function answerChallenge(redirectUrl: string, decision: 'approve' | 'deny') {
  expect(redirectUrl.startsWith(`${gw.url}/acs/`)).toBe(true);
  const page = await fetch(redirectUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('Approve');
  expect(html).toContain('Deny');
  const { returnLink, landing } = await decideChallenge(gw, redirectUrl, decision);
  expect(returnLink.pathname).toMatch(/^\/payments\/\d+\/return$/);
  return landing;
}

const read = async (paymentId: number) => (await gw.call('GET', `/payments/${paymentId}`, { apiKey: m.apiKey })).body;
const requestOf = async (id: number) => (await gw.call('GET', `/payment-requests/${id}`, { apiKey: m.apiKey })).body;

function landingQuery(landing: Response) {
  expect(landing.status).toBe(303);
  const url = new URL(landing.headers.get('location')!);
  return { base: `${url.origin}${url.pathname}`, query: Object.fromEntries(url.searchParams) };
}

/**
 * Where the payer ends: h2h takes successUrl / failureUrl; the per-processor card variant has no such
 * fields (spec), so its payer lands on the gateway's result page.
 */
async function expectLanding(
  path: PathName,
  landing: Response,
  expected: { paymentRequestId: number; paymentId: number; status: string },
) {
  if (path !== 'h2h') {
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain(`<strong>${expected.status}</strong>`);
    return;
  }
  const { base, query } = landingQuery(landing);
  expect(base).toBe(expected.status === 'succeeded' ? 'https://shop.example/paid' : FAILURE_URL);
  expect(query).toEqual({
    ...(expected.status === 'succeeded' ? { order: '42' } : {}),
    paymentRequestId: String(expected.paymentRequestId),
    paymentId: String(expected.paymentId),
    status: expected.status,
  });
}

describe('3-D Secure challenge, the whole way', () => {
  for (const path of ['h2h', 'acme', 'globex'] as const) {
    it(`${path}: approved challenge → succeeded, the payer lands on successUrl (or the result page)`, async () => {
      const { id, answer, payment } = await challenged(path, CARDS.challengeApprove, path === 'h2h' ? URLS : {});
      expect(payment).toMatchObject({ status: 'requires_action', challengeRequired: true, cardToken: null });
      expect(answer.cardToken).toBeNull();
      const landing = await answerChallenge(payment.redirectUrl, 'approve');
      await expectLanding(path, landing, { paymentRequestId: id, paymentId: payment.paymentId, status: 'succeeded' });
      expect(await read(payment.paymentId)).toMatchObject({
        status: 'succeeded',
        failure: null,
        threeDs: { result: 'Y', eci: '05' },
      });
      expect(await requestOf(id)).toMatchObject({ status: 'paid' });
    });

    it(`${path}: denied challenge → failed THREEDS_FAILED PAY003, failureUrl (or the result page), request open`, async () => {
      const { id, payment } = await challenged(path, CARDS.challengeApprove, path === 'h2h' ? URLS : {});
      const landing = await answerChallenge(payment.redirectUrl, 'deny');
      await expectLanding(path, landing, { paymentRequestId: id, paymentId: payment.paymentId, status: 'failed' });
      expect(await read(payment.paymentId)).toMatchObject({
        status: 'failed',
        threeDs: { result: 'N', eci: '07' },
        failure: {
          error: 'THREEDS_FAILED',
          code: 'PAY003',
          details: { threeDsResult: 'N', acsResponse: expect.any(String) },
        },
      });
      expect(await requestOf(id)).toMatchObject({ status: 'open' });
    });
  }

  it('a card declined after an approved challenge fails as a card decline and lands on failureUrl', async () => {
    const { id, payment } = await challenged('h2h', CARDS.challengeDecline, URLS);
    const landing = await answerChallenge(payment.redirectUrl, 'approve');
    await expectLanding('h2h', landing, { paymentRequestId: id, paymentId: payment.paymentId, status: 'failed' });
    expect(await read(payment.paymentId)).toMatchObject({
      status: 'failed',
      declineCode: '05',
      failure: { error: 'CARD_DECLINED', code: 'PAY001' },
    });
  });

  it('the frictionless card authenticates without a challenge (ECI 05) and is approved in the same call', async () => {
    const { payment } = await challenged('h2h', CARDS.frictionless);
    expect(payment).toMatchObject({
      status: 'succeeded',
      challengeRequired: false,
      threeDs: { result: 'Y', eci: '05' },
    });
    expect(payment.cardToken).toMatch(/^ctok_/);
  });

  it('without successUrl / failureUrl the payer sees the gateway result page', async () => {
    const { payment } = await challenged('acme', CARDS.challengeApprove);
    const landing = await answerChallenge(payment.redirectUrl, 'approve');
    expect(landing.status).toBe(200);
    expect(landing.headers.get('content-type')).toContain('text/html');
    const html = await landing.text();
    expect(html).toContain('Payment complete');
    expect(html).toContain(`Payment ${payment.paymentId} `);
  });

  it('a return link with a wrong signature is 404 and tells nothing', async () => {
    const { payment } = await challenged('acme', CARDS.challengeApprove, URLS);
    const res = await gw.call('GET', `/payments/${payment.paymentId}/return?signature=${'0'.repeat(64)}`);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('shop.example');
  });

  it('a stored card token with is3ds: true goes through the challenge too', async () => {
    const first = await gw.call('POST', PATHS.acme(await createRequest(gw, m)), {
      apiKey: m.apiKey,
      body: card(CARDS.visa),
    });
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', PATHS.h2h(id), {
      apiKey: m.apiKey,
      body: { ...payer, token: first.body.cardToken, amount: 10.5, unit: 'EUR', is3ds: true, ...URLS },
    });
    expect(res.body).toMatchObject({ status: 'requires_action', method: 'token' });
    const { query } = landingQuery(await answerChallenge(res.body.redirectUrl, 'approve'));
    expect(query.status).toBe('succeeded');
    expect(await requestOf(id)).toMatchObject({ status: 'paid' });
  });

  it('keeps the authentication value on the payment, sealed, and never logs it', async () => {
    const { payment } = await challenged('acme', CARDS.challengeApprove);
    await answerChallenge(payment.redirectUrl, 'approve');
    const row = await gw.db
      .selectFrom('payments')
      .select('three_ds')
      .where('id', '=', payment.paymentId)
      .executeTakeFirstOrThrow();
    const sealed = String(row.three_ds!.authenticationValue);
    const value = gw.gateway.app.ctx.vault.unseal(sealed);
    expect(Buffer.from(value, 'base64')).toHaveLength(20);
    expect(sealed).not.toContain(value);
    expect(gw.logs()).not.toContain(value);
    expect(JSON.stringify(await read(payment.paymentId))).not.toContain(value);
    // Nor in the stored 3-D Secure callback, nor in the list of received callbacks.
    const stored = await gw.db.selectFrom('callback_events').selectAll().where('source', '=', '3ds').execute();
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(value);
    const shown = await gw.call('GET', '/callback-events?source=3ds', { apiKey: m.apiKey });
    expect(shown.body.data.length, shown.text).toBeGreaterThan(0);
    expect(shown.body.data[0].payload).toMatchObject({ authenticationValue: '[redacted]' });
    expect(shown.text).not.toContain(value);
  });

  it('browserInfo members are type-checked', async () => {
    const id = await createRequest(gw, m);
    const res = await gw.call('POST', PATHS.acme(id), {
      apiKey: m.apiKey,
      body: { ...card(CARDS.visa), browserInfo: { colorDepth: 24 } },
    });
    expect(res.status).toBe(400);
    const ok = await gw.call('POST', PATHS.acme(await createRequest(gw, m)), {
      apiKey: m.apiKey,
      body: { ...card(CARDS.challengeApprove), browserInfo: { colorDepth: '24', javaEnabled: false } },
    });
    expect(ok.body).toMatchObject({ status: 'requires_action' });
  });
});

describe('late, replayed and reordered results', () => {
  const sign = (body: string) => hmacHex('sha512', gw.gateway.app.ctx.secrets.callbackSigningSecret, body);
  const deliver = async (source: string, body: Record<string, unknown>) => {
    const raw = JSON.stringify(body);
    return gw.call('POST', `/callbacks/${source}`, { body: raw, headers: { 'x-webhook-signature': sign(raw) } });
  };

  it('an unanswered challenge expires after THREEDS_CHALLENGE_TTL_SECONDS; the request reopens; a late approval changes nothing', async () => {
    const { id, payment } = await challenged('h2h', CARDS.challengeApprove, URLS);
    gw.clock.advance(599);
    await gw.runJobs();
    expect((await read(payment.paymentId)).status).toBe('requires_action');
    gw.clock.advance(2);
    await gw.runJobs();
    expect(await read(payment.paymentId)).toMatchObject({
      status: 'failed',
      failure: { error: 'THREEDS_FAILED', details: { acsResponse: 'challenge_expired' } },
    });
    expect(await requestOf(id)).toMatchObject({ status: 'open' });

    const { base, query } = landingQuery(await answerChallenge(payment.redirectUrl, 'approve'));
    expect(base).toBe(FAILURE_URL);
    expect(query.status).toBe('failed');
    expect((await read(payment.paymentId)).status).toBe('failed');
    // The request takes another attempt.
    const again = await gw.call('POST', PATHS.h2h(id), { apiKey: m.apiKey, body: h2hCard(CARDS.visa) });
    expect(again.body).toMatchObject({ status: 'succeeded' });
  });

  it('a replayed ACS result and a reordered earlier one leave the settled payment as it is', async () => {
    const { payment } = await challenged('acme', CARDS.challengeApprove, URLS);
    await answerChallenge(payment.redirectUrl, 'approve');
    const sandbox = gw.gateway.sandbox!.url;
    const resent = await fetch(`${sandbox}/control/callbacks/${payment.transactionId}/resend`, { method: 'POST' });
    expect(resent.status).toBe(200);
    const base = {
      transactionId: payment.transactionId,
      amount: 1050,
      currency: 'EUR',
      timestamp: new Date().toISOString(),
      providerData: { reference: `pay_${payment.paymentId}` },
    };
    const denied = await deliver('3ds', {
      ...base,
      eventId: 'evt_late_deny',
      status: 'failed',
      threeDsResult: 'N',
      eci: '07',
    });
    expect(denied.status).toBe(200);
    const asking = await deliver('svc', { ...base, eventId: 'evt_late_challenge', status: 'requires_action' });
    expect(asking.status).toBe(200);
    expect(await read(payment.paymentId)).toMatchObject({ status: 'succeeded', threeDs: { result: 'Y' } });
  });
});
