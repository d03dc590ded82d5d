import { readFileSync, rmSync } from 'node:fs';
import adyen from '@adyen/api-library';
import { Agent, fetch as fetchWithAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdyenSimulator,
  adyenClientForSimulator,
  startAdyenSimulator,
  totalsFor,
} from '../../simulators/adyen/index.js';
import { selfSignedCertificate } from '../helpers/tls.js';
import { startReceiver } from './receiver.js';

// The official SDK against the simulator; every exchange is held to Adyen's OpenAPI documents.

const { CheckoutAPI, HttpClientException, Types, hmacValidator } = adyen;

let sim: AdyenSimulator;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tls: ReturnType<typeof selfSignedCertificate>;
let browser: Agent;
let checkout: InstanceType<typeof CheckoutAPI>;

const MERCHANT = 'SimulatorMerchantECOM';

beforeAll(async () => {
  tls = selfSignedCertificate();
  browser = new Agent({ connect: { ca: readFileSync(tls.certFile) } });
  receiver = await startReceiver('[accepted]');
  sim = await startAdyenSimulator({
    tls: { key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) },
    webhookUrl: receiver.url,
  });
  checkout = new CheckoutAPI(adyenClientForSimulator(sim));
});

afterAll(async () => {
  await sim?.close();
  await receiver?.close();
  await browser?.close();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

afterEach(async () => {
  await sim.webhooksSettled();
  expect(sim.violations).toEqual([]);
});

const card = (holderName: string, number = '4111111111111111') => ({
  type: Types.checkout.CardDetails.TypeEnum.Scheme,
  number,
  expiryMonth: '03',
  expiryYear: '2030',
  cvc: '737',
  holderName,
});

const pay = (reference: string, holderName = 'Jane Shopper', extra: Record<string, unknown> = {}, number?: string) =>
  checkout.PaymentsApi.payments({
    amount: { currency: 'EUR', value: 1000 },
    merchantAccount: MERCHANT,
    reference,
    returnUrl: 'https://shop.example/back',
    paymentMethod: card(holderName, number),
    ...extra,
  });

/** Notification items the receiver got, each checked with the SDK's HMAC validator. */
async function notifications(reference?: string) {
  await sim.webhooksSettled();
  const validator = new hmacValidator();
  return receiver.received
    .map((r) => JSON.parse(r.body).notificationItems[0].NotificationRequestItem)
    .filter((item) => reference === undefined || item.merchantReference === reference)
    .map((item) => ({ ...item, verified: validator.validateHMAC(item, sim.hmacKey) }));
}

describe('Adyen simulator through the official SDK', () => {
  it('authorises a card and sends a signed AUTHORISATION that the receiver accepts', async () => {
    const payment = await pay('order-approve');
    expect(payment).toMatchObject({ resultCode: 'Authorised', merchantReference: 'order-approve' });
    expect(payment.pspReference).toMatch(/^[A-Z0-9]{16}$/);
    const [authorisation] = await notifications('order-approve');
    expect(authorisation).toMatchObject({
      eventCode: 'AUTHORISATION',
      success: 'true',
      pspReference: payment.pspReference,
      verified: true,
    });
    expect(sim.webhooks.at(-1)?.answer).toBe('[accepted]');
  });

  it.each([
    ['DECLINED', 'Refused', 'Refused', '2'],
    ['NOT_ENOUGH_BALANCE', 'Refused', 'Not enough balance', '12'],
    ['CARD_EXPIRED', 'Refused', 'Expired Card', '6'],
    ['BLOCK_CARD', 'Refused', 'Blocked Card', '5'],
    ['CVC_DECLINED', 'Refused', 'CVC Declined', '24'],
    ['ERROR', 'Error', 'Acquirer Error', '4'],
  ])('plays holder name %s as %s "%s" (%s)', async (holderName, resultCode, refusalReason, refusalReasonCode) => {
    const reference = `order-${holderName}`;
    const payment = await pay(reference, holderName);
    expect(payment).toMatchObject({ resultCode, refusalReason, refusalReasonCode });
    const [authorisation] = await notifications(reference);
    expect(authorisation).toMatchObject({ success: 'false', reason: refusalReason, verified: true });
    expect(totalsFor(sim.ledger(), reference)).toMatchObject({ authorised: 0, captured: 0 });
  });

  it.each([
    ['approve', 'Authorised'],
    ['deny', 'Refused'],
  ])(
    'redirects to 3-D Secure; %s on the challenge page returns with redirectResult for /payments/details',
    async (action, resultCode) => {
      const reference = `order-3ds-${action}`;
      const payment = await pay(reference, 'Jane Shopper', {}, '4917610000000000');
      expect(payment.resultCode).toBe('RedirectShopper');
      expect(payment.action).toMatchObject({ type: 'redirect', method: 'GET' });
      const url = (payment.action as { url: string }).url;
      const page = await fetchWithAgent(url, { dispatcher: browser });
      expect(await page.text()).toContain('3-D Secure');
      const answer = await fetchWithAgent(url, {
        method: 'POST',
        body: new URLSearchParams({ action }),
        redirect: 'manual',
        dispatcher: browser,
      });
      expect(answer.status).toBe(303);
      const back = new URL(answer.headers.get('location') as string);
      expect(back.origin + back.pathname).toBe('https://shop.example/back');
      const redirectResult = back.searchParams.get('redirectResult') as string;
      const details = await checkout.PaymentsApi.paymentsDetails({ details: { redirectResult } });
      expect(details).toMatchObject({ resultCode, merchantReference: reference });
      if (action === 'deny')
        expect(details).toMatchObject({ refusalReason: '3D Not Authenticated', refusalReasonCode: '11' });
      expect((await notifications(reference)).map((n) => [n.eventCode, n.success])).toEqual([
        ['AUTHORISATION', action === 'approve' ? 'true' : 'false'],
      ]);
    },
  );

  it('captures (201 received, then CAPTURE), refunds part and the rest, and refuses a refund above the capture', async () => {
    const reference = 'order-capture-refund';
    const payment = await pay(reference);
    const psp = payment.pspReference as string;
    const modifications = checkout.ModificationsApi;
    const capture = await modifications.captureAuthorisedPayment(psp, {
      merchantAccount: MERCHANT,
      amount: { currency: 'EUR', value: 1000 },
    });
    expect(capture).toMatchObject({ status: 'received', paymentPspReference: psp });
    await modifications.refundCapturedPayment(psp, {
      merchantAccount: MERCHANT,
      amount: { currency: 'EUR', value: 300 },
    });
    await modifications.refundCapturedPayment(psp, {
      merchantAccount: MERCHANT,
      amount: { currency: 'EUR', value: 700 },
    });
    await modifications.refundCapturedPayment(psp, {
      merchantAccount: MERCHANT,
      amount: { currency: 'EUR', value: 1 },
    });
    const events = (await notifications(reference)).map((n) => [n.eventCode, n.success, n.amount.value, n.verified]);
    expect(events).toEqual([
      ['AUTHORISATION', 'true', 1000, true],
      ['CAPTURE', 'true', 1000, true],
      ['REFUND', 'true', 300, true],
      ['REFUND', 'true', 700, true],
      ['REFUND', 'false', 1, true],
    ]);
    expect(totalsFor(sim.ledger(), reference)).toMatchObject({ captured: 1000, refunded: 1000 });
  });

  it('cancels an authorisation; a later capture fails in its notification', async () => {
    const reference = 'order-cancel';
    const psp = (await pay(reference)).pspReference as string;
    const cancel = await checkout.ModificationsApi.cancelAuthorisedPaymentByPspReference(psp, {
      merchantAccount: MERCHANT,
    });
    expect(cancel).toMatchObject({ status: 'received', paymentPspReference: psp });
    await checkout.ModificationsApi.captureAuthorisedPayment(psp, {
      merchantAccount: MERCHANT,
      amount: { currency: 'EUR', value: 1000 },
    });
    expect((await notifications(reference)).map((n) => [n.eventCode, n.success])).toEqual([
      ['AUTHORISATION', 'true'],
      ['CANCELLATION', 'true'],
      ['CAPTURE', 'false'],
    ]);
    expect(totalsFor(sim.ledger(), reference)).toMatchObject({ authorised: 0, captured: 0 });
  });

  it('captures at once with captureDelayHours 0, and sends CHARGEBACK on request', async () => {
    const reference = 'order-autocapture';
    const psp = (await pay(reference, 'Jane Shopper', { captureDelayHours: 0 })).pspReference as string;
    expect(totalsFor(sim.ledger(), reference)).toMatchObject({ captured: 1000 });
    sim.chargeback(psp);
    const chargeback = (await notifications(reference)).find((n) => n.eventCode === 'CHARGEBACK');
    expect(chargeback).toMatchObject({ pspReference: psp, success: 'true', verified: true });
  });

  it('replays an idempotent /payments without paying again, and refuses the key with another body', async () => {
    const request = {
      amount: { currency: 'EUR', value: 1500 },
      merchantAccount: MERCHANT,
      reference: 'order-idem',
      returnUrl: 'https://shop.example/back',
      paymentMethod: card('Jane Shopper'),
    };
    const first = await checkout.PaymentsApi.payments(request, { idempotencyKey: 'idem-adyen-1' });
    const second = await checkout.PaymentsApi.payments(request, { idempotencyKey: 'idem-adyen-1' });
    expect(second.pspReference).toBe(first.pspReference);
    const other = await checkout.PaymentsApi.payments(
      { ...request, amount: { currency: 'EUR', value: 1600 } },
      { idempotencyKey: 'idem-adyen-1' },
    ).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(HttpClientException);
    expect(other).toMatchObject({ statusCode: 422, errorCode: '704' });
    expect(totalsFor(sim.ledger(), 'order-idem')).toMatchObject({ payments: 1, authorised: 1500 });
  });

  it('refuses a wrong API key with 401', async () => {
    const wrong = new CheckoutAPI(adyenClientForSimulator({ url: sim.url, apiKey: 'AQE_wrong' }));
    const error = await wrong.PaymentsApi.payments({
      amount: { currency: 'EUR', value: 1000 },
      merchantAccount: MERCHANT,
      reference: 'order-401',
      returnUrl: 'https://shop.example/back',
      paymentMethod: card('Jane Shopper'),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 401 });
  });
});

describe('Adyen simulator faults', () => {
  it('answers 500 and 429 (with Retry-After) in Adyen error shape; nothing is paid', async () => {
    sim.next({ match: 'POST /payments', status: 500 });
    const failed = await pay('order-500').catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(HttpClientException);
    expect(failed).toMatchObject({ statusCode: 500 });
    sim.next({ status: 429, retryAfterSeconds: 3 });
    const throttled = await pay('order-429').catch((e: unknown) => e);
    expect(throttled).toMatchObject({ statusCode: 429 });
    expect((throttled as { responseHeaders?: Record<string, string> }).responseHeaders?.['retry-after']).toBe('3');
    expect(totalsFor(sim.ledger(), 'order-500').payments + totalsFor(sim.ledger(), 'order-429').payments).toBe(0);
  });

  it('pays once when the answer is lost after the payment and the caller retries with the same key', async () => {
    sim.next({ match: 'POST /payments', reset: true, processed: true });
    const request = {
      amount: { currency: 'EUR', value: 800 },
      merchantAccount: MERCHANT,
      reference: 'order-lost-answer',
      returnUrl: 'https://shop.example/back',
      paymentMethod: card('Jane Shopper'),
    };
    const lost = await checkout.PaymentsApi.payments(request, { idempotencyKey: 'idem-lost' }).catch((e: unknown) => e);
    expect(lost).toMatchObject({ name: 'ApiException', message: 'socket hang up' });
    const retried = await checkout.PaymentsApi.payments(request, { idempotencyKey: 'idem-lost' });
    expect(retried.resultCode).toBe('Authorised');
    expect(totalsFor(sim.ledger(), 'order-lost-answer')).toMatchObject({ payments: 1, authorised: 800 });
  });

  it('holds an answer past the SDK timeout', async () => {
    sim.next({ hang: true });
    const impatient = new CheckoutAPI(adyenClientForSimulator(sim, { connectionTimeoutMillis: 300 }));
    const error = await impatient.PaymentsApi.payments({
      amount: { currency: 'EUR', value: 1000 },
      merchantAccount: MERCHANT,
      reference: 'order-hang',
      returnUrl: 'https://shop.example/back',
      paymentMethod: card('Jane Shopper'),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ApiException', message: 'socket hang up' });
  });
});

describe('Adyen simulator contract checks', () => {
  const post = (path: string, body: unknown) =>
    fetchWithAgent(`${sim.checkoutUrl}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': sim.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher: browser,
    });

  afterEach(() => {
    // These tests break the contract on purpose: what they recorded is checked, then dropped.
    sim.violations.splice(0);
  });

  it('catches an unknown field and a wrong type, answering 422 with an errorCode', async () => {
    const base = {
      amount: { currency: 'EUR', value: 1000 },
      merchantAccount: MERCHANT,
      reference: 'bad',
      returnUrl: 'https://shop.example/back',
      paymentMethod: card('J'),
    };
    const unknown = await post('/payments', { ...base, colour: 'blue' });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ status: 422, errorCode: '702', errorType: 'validation' });
    await post('/payments', { ...base, amount: { currency: 'EUR', value: '1000' } });
    await post('/payments/PSP/captures', { merchantAccount: MERCHANT });
    expect(sim.violations.map((v) => v.operation)).toEqual([
      'POST /payments',
      'POST /payments',
      'POST /payments/{paymentPspReference}/captures',
    ]);
    expect(sim.violations[0].errors.join()).toContain('colour');
    expect(sim.violations[1].errors.join()).toContain('/amount/value must be integer');
    expect(sim.violations[2].errors.join()).toContain("must have required property 'amount'");
  });
});
