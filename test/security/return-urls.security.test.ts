import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { useGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, decideChallenge, h2hCard } from '../payments/fixtures.js';

/**
 * The 3-D Secure return sends the payer's browser to the merchant's successUrl / failureUrl: in a
 * Location header and as a link on the 303's page (docs/decisions.md "Return URLs"). Only an http(s) URL
 * goes there, serialized and escaped; a stored value that is none (from before the rule, or written
 * straight into the store) gets the gateway's own result page, never a 500.
 */
const gw = useGateway();
let m: TestMerchant;
beforeAll(async () => {
  m = await gw.merchant();
});

/** A challenged payment with `successUrl` stored as is, approved by the payer: the gateway's answer to the browser. */
async function landingWith(successUrl: string): Promise<Response> {
  const id = await createRequest(gw, m);
  const paid = await gw.call('POST', `/payments/h2h/${id}`, {
    apiKey: m.apiKey,
    body: h2hCard(CARDS.challengeApprove),
  });
  expect(paid.status, paid.text).toBe(200);
  await sql`update payments set options = options || ${JSON.stringify({ successUrl })}::jsonb
    where id = ${paid.body.paymentId}`.execute(gw.db);
  return (await decideChallenge(gw, paid.body.redirectUrl, 'approve')).landing;
}

it('the return sends the browser only to an http(s) URL, escaped; any other stored value gets the result page', async () => {
  for (const stored of ['not a url', 'javascript:alert(1)', 'javascript:alert("x")//<b>', 'data:text/html,<b>hi</b>']) {
    const landing = await landingWith(stored);
    expect(landing.status, stored).toBe(200);
    expect(landing.headers.get('location'), stored).toBeNull();
    const page = await landing.text();
    expect(page, stored).toContain('Payment complete');
    expect(page, stored).not.toContain(stored.slice(0, 10));
  }

  const landing = await landingWith(`https://shop.example/it's?note="><script>alert(1)</script>`);
  expect(landing.status).toBe(303);
  const location = landing.headers.get('location')!;
  expect(new URL(location).protocol).toBe('https:');
  expect(location).not.toMatch(/["<>\s]/);
  const page = await landing.text();
  expect(page).not.toContain('<script');
  const href = /<a href="([^"]*)">/.exec(page)?.[1];
  expect(href).toBeDefined();
  expect(href).not.toMatch(/[<>'"]/);
  // The link is the Location, as an attribute value decodes it.
  expect(href!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))).toBe(location);
});
