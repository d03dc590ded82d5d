/**
 * The hosted checkout in a real Chromium (Debian's, installed by scripts/chromium.sh when missing),
 * driven by playwright-core: the example shop on one origin embeds the checkout from the gateway's.
 * Screenshots of each state go to .tmp/screenshots/ (not committed).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutPage, startShop, type Shop } from '../../examples/merchant/shop.js';
import {
  SCREENSHOTS,
  freePort,
  launchChromium,
  startPageServer as startLoopbackPages,
  withJobRunner,
} from '../helpers/browser.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { createRequest, mintToken } from '../payment-requests/fixtures.js';
import { CARDS, payer } from '../payments/fixtures.js';

const CVV = '737';

let gw: TestGateway;
let shop: Shop;
let merchant: TestMerchant;
let browser: Browser;
let context: BrowserContext;
/** Everything the browser asked for, and every message the shop's window received, for the card-data checks. */
const requestedUrls: string[] = [];

beforeAll(async () => {
  // First: it builds the front ends the gateway serves.
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const [shopPort, gatewayPort, pagesPort, strangerPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  allowedPages = await startPageServer(pagesPort);
  strangerPages = await startPageServer(strangerPort);
  // localhost for the gateway, 127.0.0.1 for the shop: two sites, as in production.
  gw = await startTestGateway({
    env: {
      PORT: String(gatewayPort),
      PUBLIC_URL: `http://localhost:${gatewayPort}`,
      CHECKOUT_FRAME_ANCESTORS: `http://127.0.0.1:${shopPort},${allowedPages}`,
    },
  });
  merchant = await gw.merchant();
  const named = await gw.call('PATCH', '/settings', {
    apiKey: merchant.apiKey,
    body: { businessName: 'Example Coffee Roasters' },
  });
  expect(named.status, named.text).toBe(200);
  shop = await startShop({ gatewayUrl: gw.url, apiKey: merchant.apiKey, port: shopPort });
  context = await browser.newContext({ viewport: { width: 360, height: 800 }, locale: 'de-DE' });
  context.on('request', (request) => requestedUrls.push(request.url()));
  await context.addInitScript(() => {
    const all: string[] = [];
    (window as unknown as { allMessages: string[] }).allMessages = all;
    window.addEventListener('message', (event) => all.push(JSON.stringify(event.data)));
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await gw?.close();
  for (const server of pageServers) await new Promise((resolve) => server.close(resolve));
});

const checkout = (page: Page): FrameLocator => page.frameLocator('iframe');
const shopEvents = (page: Page) => page.evaluate(() => (window as unknown as { shopEvents: any[] }).shopEvents);

async function fillCard(frame: FrameLocator | Page, number: string, withPayer = true): Promise<void> {
  await frame.getByLabel('Card number').fill(number);
  await frame.getByLabel('Expiry date (MM / YY)').fill('1230');
  await frame.getByLabel('Security code (CVV)').fill(CVV);
  if (!withPayer) return;
  await frame.getByLabel('Name on card').fill(payer.name);
  await frame.getByLabel('Email').fill(payer.email);
  await frame.getByLabel('Phone, with country code').fill(payer.phoneNumber);
  await frame.getByLabel('Address').fill(payer.address);
  await frame.getByLabel('City').fill(payer.city);
  await frame.getByLabel('State or region').fill(payer.state);
  await frame.getByLabel('Postal code').fill(payer.postalCode);
}

async function waitForEvent(page: Page, type: string): Promise<any> {
  await page.waitForFunction(
    (t) => (window as unknown as { shopEvents: any[] }).shopEvents.some((e) => e.type === t),
    type,
    { timeout: 15_000 },
  );
  return (await shopEvents(page)).find((e: any) => e.type === type);
}

/**
 * Pages of the test's own, served on loopback like the shop (a page served by the browser's request
 * interception counts as public and may not reach loopback addresses): one origin allowed to frame the
 * checkout, one not.
 */
const pages = new Map<string, string>();
const pageServers: Server[] = [];
async function startPageServer(port: number): Promise<string> {
  const { origin, server } = await startLoopbackPages(port, pages);
  pageServers.push(server);
  return origin;
}
let allowedPages: string;
let strangerPages: string;

/**
 * A page embedding a given request and token: of an allowed origin unless told otherwise; `consoleErrors`
 * collects the page's console errors from its first line on.
 */
async function openEmbedding(
  requestId: number,
  token: string,
  options: { origin?: string; browserContext?: BrowserContext; loadTimeoutMs?: number; consoleErrors?: string[] } = {},
): Promise<Page> {
  const { origin = allowedPages, browserContext = context, loadTimeoutMs, consoleErrors } = options;
  const path = `/embed-${requestId}`;
  pages.set(path, checkoutPage({ checkoutBase: gw.config.checkoutUrl, requestId, token, loadTimeoutMs }));
  const page = await browserContext.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors?.push(message.text());
  });
  await page.goto(`${origin}${path}`);
  return page;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const inside = (inner: Box, outer: Box) =>
  inner.width > 0 &&
  inner.height > 0 &&
  inner.x >= outer.x &&
  inner.y >= outer.y &&
  inner.x + inner.width <= outer.x + outer.width &&
  inner.y + inner.height <= outer.y + outer.height;

/**
 * What the payer sees of an element of the checkout frame, in the shop page's coordinates: the iframe's
 * content box plus the element's box in the frame's viewport. Shown means wholly inside the iframe's box,
 * with the iframe, scrolled into view, wholly inside the shop page's viewport.
 */
async function expectShownInFrame(page: Page, element: Locator): Promise<void> {
  const iframe = page.locator('iframe');
  await iframe.scrollIntoViewIfNeeded();
  const frameBox = await iframe.evaluate((el) => {
    const { x, y, width, height } = el.getBoundingClientRect();
    return { x, y, width, height, contentX: x + el.clientLeft, contentY: y + el.clientTop };
  });
  const inFrame = await element.evaluate((el) => {
    const { x, y, width, height } = el.getBoundingClientRect();
    return { x, y, width, height };
  });
  const box = { ...inFrame, x: frameBox.contentX + inFrame.x, y: frameBox.contentY + inFrame.y };
  const viewport = { x: 0, y: 0, ...page.viewportSize()! };
  expect(inside(box, frameBox), `${JSON.stringify(box)} in the iframe ${JSON.stringify(frameBox)}`).toBe(true);
  expect(inside(frameBox, viewport), `the iframe ${JSON.stringify(frameBox)} in ${JSON.stringify(viewport)}`).toBe(
    true,
  );
}

/**
 * axe-core's serious and critical findings in the checkout frame. axe is injected as an inline script,
 * which the page's CSP rightly refuses: the page's context must bypass CSP.
 */
async function axeAudit(page: Page): Promise<Array<{ id: string; impact: string }>> {
  const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const checkoutFrame = page.frames().find((f) => f.url().includes('/main'))!;
  await checkoutFrame.addScriptTag({ content: axeSource });
  const result = await checkoutFrame.evaluate(async () => {
    const run = (window as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe.run();
    return (await run).violations.map((v) => ({ id: v.id, impact: v.impact }));
  });
  return result.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
}

/** A request of a merchant that offers wallets in the checkout (PATCH /settings walletEnabled), with its token. */
async function walletRequest(): Promise<{ paymentRequestId: number; token: string }> {
  const shopOwner = await gw.merchant();
  const enabled = await gw.call('PATCH', '/settings', { apiKey: shopOwner.apiKey, body: { walletEnabled: true } });
  expect(enabled.status, enabled.text).toBe(200);
  const request = await createRequest(gw, shopOwner.apiKey);
  return {
    paymentRequestId: request.paymentRequestId,
    token: await mintToken(gw, shopOwner.apiKey, request.paymentRequestId),
  };
}

/** A wallet request embedded in an allowed page, the wallet chosen and, unless told not to, the payer filled in. */
async function openWalletPanel(options: { browserContext?: BrowserContext; fill?: boolean } = {}) {
  const { paymentRequestId, token } = await walletRequest();
  const page = await openEmbedding(paymentRequestId, token, { browserContext: options.browserContext });
  const frame = checkout(page);
  await frame.getByRole('radio', { name: 'Wallet' }).check();
  if (options.fill !== false) {
    await frame.getByLabel('Your name').fill(payer.name);
    await frame.getByLabel('Email').fill(payer.email);
  }
  return { paymentRequestId, page, frame };
}

async function payWithWallet(frame: FrameLocator, outcome: string, wallet: string): Promise<void> {
  await frame.getByRole('radio', { name: outcome }).check();
  await frame.getByRole('button', { name: `Pay with ${wallet}` }).click();
}

async function paymentsOf(requestId: number) {
  return gw.db.selectFrom('payments').select(['id', 'status']).where('payment_request_id', '=', requestId).execute();
}

describe('the hosted checkout embedded in the example shop', () => {
  it('pays with an approving card; onSuccess gets the payment request and payment ids', async () => {
    const page = await context.newPage();
    await page.goto(`${shop.url}/checkout?amount=10.50&currency=EUR`);
    const frame = checkout(page);
    const ready = await waitForEvent(page, 'ready');
    // Formatted for the payer's locale (de-DE).
    await frame.getByText(/^10,50\s€$/).waitFor();
    // The business name of the merchant's settings.
    await frame.getByText('Example Coffee Roasters', { exact: true }).waitFor();
    await fillCard(frame, CARDS.visa);
    await expect(frame.getByLabel('Country code (2 letters)').inputValue()).resolves.toBe('DE');
    await page.screenshot({ path: `${SCREENSHOTS}/1-form.png`, fullPage: true });
    await frame.getByRole('button', { name: /^Pay/ }).click();
    const paid = await waitForEvent(page, 'payment.succeeded');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/2-success.png`, fullPage: true });
    const [payment] = await paymentsOf(ready.paymentRequestId);
    expect(paid).toEqual({
      source: 'svc-checkout',
      type: 'payment.succeeded',
      paymentRequestId: ready.paymentRequestId,
      paymentId: payment.id,
      status: 'succeeded',
    });
    // The frame grew to its content (resize messages).
    const height = await page.locator('iframe').evaluate((el) => el.getBoundingClientRect().height);
    expect(height).toBeGreaterThan(100);
    await page.close();
  });

  it('explains a decline in plain words, and another card then succeeds', async () => {
    const page = await context.newPage();
    await page.goto(`${shop.url}/checkout`);
    const frame = checkout(page);
    await fillCard(frame, CARDS.insufficientFunds);
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await frame
      .locator('#notice', {
        hasText: 'Your card does not have enough funds for this payment. Nothing was charged. Try another card.',
      })
      .waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/3-declined.png`, fullPage: true });
    expect((await waitForEvent(page, 'payment.failed')).status).toBe('failed');
    // The payer's details stay; only the card is entered again.
    await expect(frame.getByLabel('Name on card').inputValue()).resolves.toBe(payer.name);
    await fillCard(frame, CARDS.mastercard, false);
    await frame.getByRole('button', { name: /^Pay/ }).click();
    const paid = await waitForEvent(page, 'payment.succeeded');
    const payments = await paymentsOf(paid.paymentRequestId);
    expect(payments.map((p) => p.status).sort()).toEqual(['failed', 'succeeded']);
    expect(paid.paymentId).toBe(payments.find((p) => p.status === 'succeeded')!.id);
    await page.close();
  });

  for (const [decision, outcome] of [
    ['Approve', 'payment.succeeded'],
    ['Deny', 'payment.failed'],
  ] as const) {
    it(`runs a 3-D Secure challenge inside the frame and comes back (${decision})`, async () => {
      const page = await context.newPage();
      await page.goto(`${shop.url}/checkout`);
      const frame = checkout(page);
      await fillCard(frame, CARDS.challengeApprove);
      await frame.getByRole('button', { name: /^Pay/ }).click();
      await frame.getByRole('button', { name: decision }).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/4-3ds-${decision}.png`, fullPage: true });
      await frame.getByRole('button', { name: decision }).click();
      const event = await withJobRunner(gw, () => waitForEvent(page, outcome));
      const [payment] = await paymentsOf(event.paymentRequestId);
      expect(event.paymentId).toBe(payment.id);
      if (decision === 'Approve') await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
      else await frame.locator('#notice', { hasText: 'Your bank did not confirm this payment' }).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/5-3ds-${decision}-back.png`, fullPage: true });
      await page.close();
    });
  }

  for (const width of [360, 1280])
    it(`shows the whole 3-D Secure challenge, Approve and Deny, in the frame at ${width} px, then fits the result`, async () => {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 800 });
      await page.goto(`${shop.url}/checkout`);
      const frame = checkout(page);
      await fillCard(frame, CARDS.challengeApprove);
      await frame.getByRole('button', { name: /^Pay/ }).click();
      await frame.getByRole('button', { name: 'Deny' }).waitFor();
      await expectShownInFrame(page, frame.getByRole('button', { name: 'Approve' }));
      await expectShownInFrame(page, frame.getByRole('button', { name: 'Deny' }));
      await page.screenshot({ path: `${SCREENSHOTS}/4-3ds-${width}px.png`, fullPage: true });
      await frame.getByRole('button', { name: 'Approve' }).click();
      await withJobRunner(gw, () => waitForEvent(page, 'payment.succeeded'));
      await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
      // Back in the checkout, the frame fits its content again: no blank challenge-sized space, nothing cut.
      const heights = () =>
        Promise.all([
          page.locator('iframe').evaluate((el) => Math.ceil(el.getBoundingClientRect().height)),
          frame.locator('html').evaluate((el) => Math.ceil(el.getBoundingClientRect().height)),
        ]);
      await expect.poll(async () => new Set(await heights()).size, { timeout: 5000 }).toBe(1);
      await expectShownInFrame(page, frame.getByText(/^Thank you\. You paid/));
      await page.close();
    });

  it('opened on its own, comes back from 3-D Secure and follows successUrl with the ids and status', async () => {
    const request = await createRequest(gw, merchant.apiKey);
    const token = await mintToken(gw, merchant.apiKey, request.paymentRequestId);
    pages.set('/order-done', '<!doctype html><title>Done</title><h1>Order complete</h1>');
    const page = await context.newPage();
    const fragment = new URLSearchParams({ token, successUrl: `${allowedPages}/order-done?order=7` });
    await page.goto(`${gw.config.checkoutUrl}/main?requestId=${request.paymentRequestId}#${fragment}`);
    await fillCard(page, CARDS.challengeApprove);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('button', { name: 'Approve' }).click();
    await withJobRunner(gw, () => page.waitForURL((url) => url.origin === allowedPages, { timeout: 20_000 }));
    await page.getByRole('heading', { name: 'Order complete' }).waitFor();
    const [payment] = await paymentsOf(request.paymentRequestId);
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/order-done');
    expect(Object.fromEntries(landed.searchParams)).toEqual({
      order: '7',
      paymentRequestId: String(request.paymentRequestId),
      paymentId: String(payment.id),
      status: 'succeeded',
    });
    await page.close();
  });

  it("follows the payment request's successUrl ahead of its own parameter, and never sends either to the gateway", async () => {
    const request = await createRequest(gw, merchant.apiKey, { successUrl: `${allowedPages}/request-done?order=8` });
    const token = await mintToken(gw, merchant.apiKey, request.paymentRequestId);
    pages.set('/request-done', '<!doctype html><title>Done</title><h1>Order complete</h1>');
    const page = await context.newPage();
    const submissions: Array<Record<string, unknown>> = [];
    page.on('request', (sent) => {
      if (sent.method() === 'POST' && new URL(sent.url()).pathname.startsWith('/payments/'))
        submissions.push(sent.postDataJSON() as Record<string, unknown>);
    });
    const fragment = new URLSearchParams({
      token,
      successUrl: `${allowedPages}/param-done`,
      failureUrl: `${allowedPages}/param-failed`,
    });
    await page.goto(`${gw.config.checkoutUrl}/main?requestId=${request.paymentRequestId}#${fragment}`);
    await fillCard(page, CARDS.visa);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL((url) => url.origin === allowedPages, { timeout: 20_000 });
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/request-done');
    expect(landed.searchParams.get('order')).toBe('8');
    expect(landed.searchParams.get('status')).toBe('succeeded');
    expect(submissions).toHaveLength(1);
    for (const field of ['notifyUrl', 'successUrl', 'failureUrl', 'captureDelayHours', 'referenceId', 'ipAddress'])
      expect(submissions[0], field).not.toHaveProperty(field);
    await page.close();
  });

  it('says the link has expired when the token has', async () => {
    const request = await createRequest(gw, merchant.apiKey);
    const token = await mintToken(gw, merchant.apiKey, request.paymentRequestId);
    gw.clock.advance(16 * 60);
    const page = await openEmbedding(request.paymentRequestId, token);
    await checkout(page).getByRole('heading', { name: 'This payment link has expired' }).waitFor();
    expect((await waitForEvent(page, 'expired')).paymentRequestId).toBe(request.paymentRequestId);
    await page.screenshot({ path: `${SCREENSHOTS}/6-expired.png`, fullPage: true });
    await page.close();
  });

  it('says a paid request is already paid, and offers no form', async () => {
    const request = await createRequest(gw, merchant.apiKey, { amount: 5, currency: 'USD' });
    const token = await mintToken(gw, merchant.apiKey, request.paymentRequestId);
    const paid = await gw.call('POST', `/payments/h2h/${request.paymentRequestId}`, {
      headers: { 'x-checkout-token': token },
      body: { ...payer, number: CARDS.visa, expiration: '12/30', cvv: '123', amount: 5, unit: 'USD' },
    });
    expect(paid.status, paid.text).toBe(200);
    const page = await openEmbedding(request.paymentRequestId, token);
    await checkout(page).getByRole('heading', { name: 'Already paid' }).waitFor();
    expect(await checkout(page).getByLabel('Card number').count()).toBe(0);
    await page.screenshot({ path: `${SCREENSHOTS}/7-already-paid.png`, fullPage: true });
    await page.close();
  });

  it('is not shown inside a page of an origin that may not frame it, and says so: onFailure and a console error', async () => {
    const request = await createRequest(gw, merchant.apiKey);
    const token = await mintToken(gw, merchant.apiKey, request.paymentRequestId);
    const consoleErrors: string[] = [];
    const page = await openEmbedding(request.paymentRequestId, token, {
      origin: strangerPages,
      loadTimeoutMs: 2000,
      consoleErrors,
    });
    await page.locator('iframe').waitFor();
    const failed = await waitForEvent(page, 'load.failed');
    expect(failed).toEqual({ source: 'svc-checkout', type: 'load.failed', reason: 'not_loaded', timeoutMs: 2000 });
    expect(await shopEvents(page)).toEqual([failed]);
    // The example shop takes the broken frame away (unmount) and tells the payer.
    await page.getByText('The payment page could not be shown. Please try again later.').waitFor();
    expect(await page.locator('iframe').count()).toBe(0);
    // The browser's own refusal, and embed.js's explanation of it.
    expect(consoleErrors.join('\n')).toContain('frame-ancestors');
    const explained = consoleErrors.filter((text) => text.startsWith('svc-checkout:'));
    expect(explained).toHaveLength(1);
    expect(explained[0]).toContain('checkoutOrigins');
    expect(explained[0]).toContain(`this page's origin ${strangerPages} `);
    expect(explained[0]).toContain(new URL(gw.config.checkoutUrl).origin);
    await page.screenshot({ path: `${SCREENSHOTS}/8-framing-refused.png`, fullPage: true });
    await page.close();
  });

  it('is shown inside a page of an origin its merchant allows in its settings (checkoutOrigins)', async () => {
    const owner = await gw.merchant();
    const allowed = await gw.call('PATCH', '/settings', {
      apiKey: owner.apiKey,
      body: { checkoutOrigins: [strangerPages] },
    });
    expect(allowed.status, allowed.text).toBe(200);
    const request = await createRequest(gw, owner.apiKey);
    const token = await mintToken(gw, owner.apiKey, request.paymentRequestId);
    const consoleErrors: string[] = [];
    const loadTimeoutMs = 4000;
    const page = await openEmbedding(request.paymentRequestId, token, {
      origin: strangerPages,
      loadTimeoutMs,
      consoleErrors,
    });
    await checkout(page).getByLabel('Card number').waitFor();
    expect((await waitForEvent(page, 'ready')).paymentRequestId).toBe(request.paymentRequestId);
    // Without a wallet setting the page offers cards only.
    expect(await checkout(page).getByRole('radio', { name: 'Wallet' }).count()).toBe(0);
    // Past the load bound (counted from the page's start, before mount): no failure was reported.
    await page.waitForFunction((bound) => performance.now() > bound, loadTimeoutMs + 500);
    expect((await shopEvents(page)).map((event: { type: string }) => event.type)).toEqual(['ready']);
    expect(consoleErrors.filter((text) => text.includes('svc-checkout'))).toEqual([]);
    await page.close();
  });

  it('pays with a wallet when the merchant enables it: a decline explained, then an approval', async () => {
    const { paymentRequestId, page, frame } = await openWalletPanel();
    await page.screenshot({ path: `${SCREENSHOTS}/9-wallet.png`, fullPage: true });
    await payWithWallet(frame, 'Decline', 'Google Pay');
    await frame
      .locator('#notice', {
        hasText: 'Your bank declined this payment. Nothing was charged. Try again or pay another way.',
      })
      .waitFor();
    const failed = await waitForEvent(page, 'payment.failed');
    await page.screenshot({ path: `${SCREENSHOTS}/10-wallet-declined.png`, fullPage: true });
    // Still the wallet, with the payer's details kept.
    await expect(frame.getByLabel('Your name').inputValue()).resolves.toBe(payer.name);
    await payWithWallet(frame, 'Approve', 'Apple Pay');
    const paid = await waitForEvent(page, 'payment.succeeded');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/11-wallet-success.png`, fullPage: true });
    const payments = await gw.db
      .selectFrom('payments')
      .select(['id', 'status', 'method', 'options'])
      .where('payment_request_id', '=', paymentRequestId)
      .orderBy('id')
      .execute();
    expect(payments.map((p) => [p.method, p.status, p.options.walletType])).toEqual([
      ['wallet', 'failed', 'googlepay'],
      ['wallet', 'succeeded', 'applepay'],
    ]);
    // Exactly what the embedding page is told: the ids and the status, nothing else.
    const message = (type: string, paymentId: number, status: string) => ({
      source: 'svc-checkout',
      type,
      paymentRequestId,
      paymentId,
      status,
    });
    expect(failed).toEqual(message('payment.failed', payments[0].id, 'failed'));
    expect(paid).toEqual(message('payment.succeeded', payments[1].id, 'succeeded'));
    await page.close();
  });

  it('runs a wallet 3-D Secure check inside the frame and comes back', async () => {
    const { paymentRequestId, page, frame } = await openWalletPanel();
    await payWithWallet(frame, 'Ask for a 3-D Secure check', 'Google Pay');
    await frame.getByRole('button', { name: 'Approve' }).click();
    const paid = await withJobRunner(gw, () => waitForEvent(page, 'payment.succeeded'));
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    const [payment] = await paymentsOf(paymentRequestId);
    expect(paid).toMatchObject({ paymentRequestId, paymentId: payment.id, status: 'succeeded' });
    await page.close();
  });

  it('has no serious accessibility violation (axe-core) on the wallet panel and the success page', async () => {
    const axeContext = await browser.newContext({ viewport: { width: 360, height: 800 }, bypassCSP: true });
    const { page, frame } = await openWalletPanel({ browserContext: axeContext, fill: false });
    await frame.getByRole('button', { name: 'Pay with Google Pay' }).click();
    await frame.getByText('Enter your name.').waitFor();
    expect(await axeAudit(page)).toEqual([]);
    await frame.getByLabel('Your name').fill(payer.name);
    await frame.getByLabel('Email').fill(payer.email);
    await payWithWallet(frame, 'Approve', 'Google Pay');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect(await axeAudit(page)).toEqual([]);
    await axeContext.close();
  });

  it('has no serious accessibility violation (axe-core) on the form and the decline', async () => {
    const axeContext = await browser.newContext({ viewport: { width: 360, height: 800 }, bypassCSP: true });
    const page = await axeContext.newPage();
    await page.goto(`${shop.url}/checkout`);
    const frame = checkout(page);
    await frame.getByLabel('Card number').waitFor();
    const audit = () => axeAudit(page);
    expect(await audit()).toEqual([]);
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await frame.locator('#f-number-error', { hasText: 'Enter your card number.' }).waitFor();
    expect(await audit()).toEqual([]);
    await axeContext.close();
  });

  it('never puts the card number or CVV in a URL, a message, storage or a log line', async () => {
    const all = [...requestedUrls].join('\n');
    expect(all).not.toContain(CARDS.visa);
    // The CVV's digits may occur in ports or ids; what must never occur is a field carrying it.
    expect(all).not.toMatch(/cvv|csc/i);
    const page = await context.newPage();
    await page.goto(`${shop.url}/checkout`);
    const frame = checkout(page);
    await fillCard(frame, CARDS.visa);
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await waitForEvent(page, 'payment.succeeded');
    const messages = await page.evaluate(() => (window as unknown as { allMessages: string[] }).allMessages);
    expect(messages.length).toBeGreaterThan(0);
    const checkoutFrame = page.frames().find((f) => f.url().includes('/main'))!;
    const storage = await checkoutFrame.evaluate(() => {
      const read = (get: () => Storage) => {
        try {
          return JSON.stringify(Object.entries(get()));
        } catch {
          return ''; // the browser refuses this frame storage: nothing can be in it
        }
      };
      return read(() => sessionStorage) + read(() => localStorage) + document.cookie;
    });
    for (const text of [messages.join('\n'), storage, page.url(), checkoutFrame.url(), requestedUrls.join('\n')]) {
      expect(text).not.toContain(CARDS.visa);
      expect(text).not.toContain('4242 4242');
      expect(text).not.toMatch(/cvv|csc|\b737\b/i);
    }
    expect(gw.logs()).not.toContain(CARDS.visa);
    expect(gw.logs()).not.toMatch(/cvv"?\s*[:=]\s*"?737/i);
    expect(checkoutFrame.url()).not.toContain('token');
    await page.close();
  });

  it('still opens with the deprecated apiKey: warns, answers Deprecation and Sunset, drops the key, flags it exposed', async () => {
    const legacy = await gw.merchant();
    const request = await createRequest(gw, legacy.apiKey);
    const page = await context.newPage();
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    const url = `${gw.config.checkoutUrl}/main?requestId=${request.paymentRequestId}&apiKey=${legacy.apiKey}`;
    const answer = await page.request.get(url, { maxRedirects: 0 });
    expect(answer.status()).toBe(303);
    expect(answer.headers()['deprecation']).toMatch(/^@\d+$/);
    expect(new Date(answer.headers()['sunset']).getTime()).toBeGreaterThan(Date.now());
    expect(answer.headers()['location']).not.toContain(legacy.apiKey);

    await page.goto(url);
    await page.getByLabel('Card number').waitFor();
    expect(page.url()).toBe(`${gw.config.checkoutUrl}/main?requestId=${request.paymentRequestId}`);
    expect(warnings.join('\n')).toMatch(/apiKey parameter is deprecated/);
    const [key] = await gw.db
      .selectFrom('api_keys')
      .select('exposed_at')
      .where('user_id', '=', legacy.userId)
      .execute();
    expect(key.exposed_at).toBeInstanceOf(Date);
    expect(gw.logs()).not.toContain(legacy.apiKey);
    await page.close();
  });
});

describe('the hosted checkout asks only what the merchant does not know', () => {
  const CARD_PAYER_LABELS = [
    'Name on card',
    'Email',
    'Phone, with country code',
    'Address',
    'City',
    'State or region',
    'Postal code',
    'Country code (2 letters)',
  ];

  /** The checkout opened on its own for a request, and every payment body the page sends. */
  async function openStandalone(owner: TestMerchant, requestId: number) {
    const token = await mintToken(gw, owner.apiKey, requestId);
    const page = await context.newPage();
    const submissions: Array<Record<string, unknown>> = [];
    page.on('request', (sent) => {
      if (sent.method() === 'POST' && new URL(sent.url()).pathname.startsWith('/payments/'))
        submissions.push(sent.postDataJSON() as Record<string, unknown>);
    });
    await page.goto(`${gw.config.checkoutUrl}/main?requestId=${requestId}#token=${token}`);
    await page.getByLabel('Card number').waitFor();
    return { page, submissions };
  }

  const countOf = async (page: Page, labels: string[]) =>
    Object.fromEntries(await Promise.all(labels.map(async (l) => [l, await page.getByLabel(l).count()] as const)));

  it("hides the payer defaults of an INR request, defaults the country to IN (not the browser's DE), and sends them", async () => {
    const owner = await gw.merchant();
    const given = {
      name: 'Asha Rao',
      email: 'asha@example.com',
      phoneNumber: '919812345678',
      address: '1 MG Road',
      city: 'Bengaluru',
      state: 'KA',
      postalCode: '560001',
    };
    const request = await createRequest(gw, owner.apiKey, { amount: 499, currency: 'INR', payer: given });
    const { page, submissions } = await openStandalone(owner, request.paymentRequestId);
    // No business name: no name at all, never the account's ("Merchant N").
    await page.getByText('Payment', { exact: true }).waitFor();
    expect(await page.getByText(/^Merchant \d+$/).count()).toBe(0);

    // Card: only the card, and the country the merchant did not give, defaulted from the currency.
    expect(await countOf(page, CARD_PAYER_LABELS.slice(0, 7))).toEqual(
      Object.fromEntries(CARD_PAYER_LABELS.slice(0, 7).map((l) => [l, 0])),
    );
    await expect(page.getByLabel('Country code (2 letters)').inputValue()).resolves.toBe('IN');
    await page.screenshot({ path: `${SCREENSHOTS}/9-payer-given-card.png`, fullPage: true });

    // UPI: the UPI ID and the country only.
    await page.getByRole('radio', { name: 'UPI', exact: true }).check();
    await page.getByLabel('UPI ID (like name@bank)').waitFor();
    expect(await page.getByLabel('Your name').count()).toBe(0);
    expect(await page.getByLabel('Phone, with country code').count()).toBe(0);
    await expect(page.getByLabel('Country code (2 letters)').inputValue()).resolves.toBe('IN');

    await page.getByRole('radio', { name: 'Card', exact: true }).check();
    await fillCard(page, CARDS.visa, false);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect(submissions).toHaveLength(1);
    expect(submissions[0]).toMatchObject({ ...given, country: 'IN', amount: 499, unit: 'INR' });
    const [payment] = await paymentsOf(request.paymentRequestId);
    expect(payment.status).toBe('succeeded');
    await page.close();
  });

  it("takes the customer's name, e-mail and country (hidden), asks the rest, and the wallet asks nothing", async () => {
    const owner = await gw.merchant();
    const wallets = await gw.call('PATCH', '/settings', { apiKey: owner.apiKey, body: { walletEnabled: true } });
    expect(wallets.status, wallets.text).toBe(200);
    const customer = await gw.call('POST', '/customers', {
      apiKey: owner.apiKey,
      body: { name: 'Ada Lovelace', email: 'ada@example.com', country: 'GB' },
    });
    expect(customer.status, customer.text).toBe(200);
    const request = await createRequest(gw, owner.apiKey, { currency: 'EUR', customerId: customer.body.id });
    const { page, submissions } = await openStandalone(owner, request.paymentRequestId);

    expect(await countOf(page, CARD_PAYER_LABELS)).toEqual({
      'Name on card': 0,
      Email: 0,
      'Phone, with country code': 1,
      Address: 1,
      City: 1,
      'State or region': 1,
      'Postal code': 1,
      'Country code (2 letters)': 0,
    });
    await page.getByRole('radio', { name: 'Wallet', exact: true }).check();
    await page.getByRole('button', { name: 'Pay with Google Pay' }).waitFor();
    expect(await page.getByLabel('Your name').count()).toBe(0);
    expect(await page.getByLabel('Email').count()).toBe(0);

    await page.getByRole('radio', { name: 'Card', exact: true }).check();
    await fillCard(page, CARDS.visa, false);
    await page.getByLabel('Phone, with country code').fill('441234567890');
    await page.getByLabel('Address').fill('12 St James Square');
    await page.getByLabel('City').fill('London');
    await page.getByLabel('State or region').fill('LND');
    await page.getByLabel('Postal code').fill('SW1Y 4LB');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor();
    expect(submissions[0]).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      country: 'GB',
      phoneNumber: '441234567890',
      city: 'London',
    });
    await page.close();
  });
});
