import { Pool } from 'undici';

/** What the bench needs from a running gateway: a merchant's test API key and payment requests. */
export const REQUEST_AMOUNT = 25.5;
export const REQUEST_CURRENCY = 'EUR';

/** Set-up calls; a 503 from the gateway's overload guard (a busy shared machine) is retried as it asks. */
async function call(pool: Pool, method: 'POST' | 'PUT', path: string, headers: Record<string, string>, body?: unknown) {
  for (let attempt = 1; ; attempt++) {
    const response = await pool.request({
      method,
      path,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode === 503 && attempt < 10) {
      const seconds = Math.min(5, Number(response.headers['retry-after']) || 1);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      continue;
    }
    if (response.statusCode >= 300) throw new Error(`${method} ${path} answered ${response.statusCode}: ${text}`);
    return text;
  }
}

/** Logs in as the merchant's user and generates its test API key, as a merchant would. */
export async function testApiKey(
  gatewayUrl: string,
  user: { email: string; password: string; userId: number },
): Promise<string> {
  const pool = new Pool(gatewayUrl, { connections: 1 });
  try {
    const { accessToken } = JSON.parse(
      await call(pool, 'POST', '/auth/login', {}, { email: user.email, password: user.password }),
    ) as { accessToken: string };
    const answer = await call(pool, 'PUT', `/users/${user.userId}/apikey?mode=test`, {
      authorization: `Bearer ${accessToken}`,
    });
    return answer.startsWith('"') ? (JSON.parse(answer) as string) : answer;
  } finally {
    await pool.close();
  }
}

/** Creates `count` open payment requests, `concurrency` at a time; returns their ids. */
export async function createPaymentRequests(
  gatewayUrl: string,
  apiKey: string,
  count: number,
  concurrency = 32,
): Promise<number[]> {
  const pool = new Pool(gatewayUrl, { connections: concurrency });
  const ids: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const text = await call(
        pool,
        'POST',
        '/payment-requests',
        { 'x-api-key': apiKey },
        {
          amount: REQUEST_AMOUNT,
          currency: REQUEST_CURRENCY,
          reference: `bench-${n}`,
        },
      );
      ids.push((JSON.parse(text) as { paymentRequestId: number }).paymentRequestId);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    return ids;
  } finally {
    await pool.close();
  }
}

/** An approved test card payment of one of those requests (src/modules/payments/schemas.ts H2hCardBody). */
export const h2hCardBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    number: '4242424242424242',
    expiration: '12/34',
    cvv: '123',
    name: 'Bench Payer',
    email: 'payer@example.com',
    phoneNumber: '4915123456789',
    address: '1 Bench Street',
    city: 'Berlin',
    state: 'BE',
    postalCode: '10115',
    country: 'DE',
    amount: REQUEST_AMOUNT,
    unit: REQUEST_CURRENCY,
    ...extra,
  });

/** The baseline's ~1 KB row. */
export const BASELINE_BODY = JSON.stringify({ kind: 'bench', filler: 'x'.repeat(1000) });
