/**
 * UPI in the hosted checkout, in a real Chromium (see browser.test.ts): the example shop on one origin
 * embeds the checkout from the gateway's; the payer pays by UPI collect, and by intent approved on the
 * sandbox payer page (the stand-in for the payer's UPI app, served through the gateway's PUBLIC_URL).
 * Screenshots go to .tmp/screenshots/ (not committed).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, FrameLocator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShop, type Shop } from '../../examples/merchant/shop.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SCREENSHOTS, freePort, launchChromium } from '../helpers/browser.js';
import { payer } from '../payments/fixtures.js';

let gw: TestGateway;
let shop: Shop;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  // First: it builds the front ends the gateway serves.
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const [shopPort, gatewayPort] = [await freePort(), await freePort()];
  // localhost for the gateway, 127.0.0.1 for the shop: two sites, as in production.
  gw = await startTestGateway({
    env: {
      PORT: String(gatewayPort),
      PUBLIC_URL: `http://localhost:${gatewayPort}`,
      CHECKOUT_FRAME_ANCESTORS: `http://127.0.0.1:${shopPort}`,
    },
  });
  const merchant = await gw.merchant();
  shop = await startShop({ gatewayUrl: gw.url, apiKey: merchant.apiKey, port: shopPort });
  // A 360 px touch phone: the intent also offers the "Open UPI app" deep link.
  context = await browser.newContext({ viewport: { width: 360, height: 800 }, locale: 'en-IN', hasTouch: true });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await gw?.close();
});

const checkout = (page: Page): FrameLocator => page.frameLocator('iframe');

/** Waits for the shop's onSuccess / onFailure event, running the gateway's jobs (off in tests) meanwhile: callbacks settle through them. */
async function waitForEvent(page: Page, type: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await gw.runJobs();
    const events = await page.evaluate(() => (window as unknown as { shopEvents: any[] }).shopEvents);
    const found = events.find((e) => e.type === type);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} event; got ${JSON.stringify(events)}`);
    await page.waitForTimeout(200);
  }
}

async function paymentsOf(requestId: number) {
  return gw.db
    .selectFrom('payments')
    .select(['id', 'status', 'method'])
    .where('payment_request_id', '=', requestId)
    .execute();
}

/** The serious and critical axe-core findings in the checkout frame (axe is injected: the context must bypass the CSP). */
async function audit(page: Page): Promise<Array<{ id: string; impact: string }>> {
  const checkoutFrame = page.frames().find((f) => f.url().includes('/main'))!;
  const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await checkoutFrame.addScriptTag({ content: axeSource });
  const found = await checkoutFrame.evaluate(async () => {
    const run = (window as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe.run();
    return (await run).violations.map((v) => ({ id: v.id, impact: v.impact }));
  });
  return found.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
}

/** The shop's checkout for ₹499, UPI chosen, the payer's details filled in. */
async function openUpi(within = context): Promise<{ page: Page; frame: FrameLocator }> {
  const page = await within.newPage();
  await page.goto(`${shop.url}/checkout?amount=499&currency=INR`);
  const frame = checkout(page);
  await frame.getByRole('radio', { name: 'UPI', exact: true }).check();
  await frame.getByLabel('Your name').fill(payer.name);
  await frame.getByLabel('Email').fill(payer.email);
  await frame.getByLabel('Phone, with country code').fill('919812345678');
  await frame.getByLabel('Address').fill('1 MG Road');
  await frame.getByLabel('City').fill('Bengaluru');
  await frame.getByLabel('State or region').fill('KA');
  await frame.getByLabel('Postal code').fill('560001');
  await expect(frame.getByLabel('Country code (2 letters)').inputValue()).resolves.toBe('IN');
  return { page, frame };
}

describe('UPI in the hosted checkout embedded in the example shop', () => {
  it('collect: the UPI ID is checked before sending, then a countdown while the payer approves, then success', async () => {
    const { page, frame } = await openUpi();
    const ready = await waitForEvent(page, 'ready');
    await frame.getByLabel('UPI ID (like name@bank)').fill('not-an-upi-id');
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await frame.getByText('Enter your UPI ID as username@bankcode, like jane@okaxis.').waitFor();
    await expect(frame.getByLabel('UPI ID (like name@bank)').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await paymentsOf(ready.paymentRequestId)).toEqual([]);

    await frame.getByLabel('UPI ID (like name@bank)').fill('success@upi');
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await frame.getByRole('heading', { name: 'Waiting for your UPI approval' }).waitFor();
    await expect(frame.getByRole('timer').textContent()).resolves.toMatch(/^Time left: [45]:\d\d$/);
    await page.screenshot({ path: `${SCREENSHOTS}/upi-1-collect-waiting.png`, fullPage: true });

    const paid = await waitForEvent(page, 'payment.succeeded');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/upi-2-collect-success.png`, fullPage: true });
    const [payment] = await paymentsOf(ready.paymentRequestId);
    expect(payment).toMatchObject({ method: 'upi', status: 'succeeded' });
    expect(paid).toMatchObject({
      paymentRequestId: ready.paymentRequestId,
      paymentId: payment.id,
      status: 'succeeded',
    });
    await page.close();
  }, 90_000);

  it('intent: a QR code and the deep link; approved on the sandbox payer page, the checkout reports success', async () => {
    const { page, frame } = await openUpi();
    await frame.getByRole('radio', { name: 'QR code: scan with any UPI app' }).check();
    await expect(frame.getByLabel('UPI ID (like name@bank)').isVisible()).resolves.toBe(false);
    await frame.getByRole('button', { name: /^Pay/ }).click();

    await frame.getByRole('img', { name: 'QR code of the UPI payment link' }).waitFor();
    await expect(frame.getByRole('timer').textContent()).resolves.toMatch(/^Time left: [45]:\d\d$/);
    const deepLink = await frame.getByRole('link', { name: 'Open UPI app' }).getAttribute('href');
    expect(deepLink).toMatch(/^upi:\/\/pay\?pa=svcgateway%40sandbox&pn=[^&]+&am=499\.00&cu=INR&tr=pay_\d+$/);
    await page.screenshot({ path: `${SCREENSHOTS}/upi-3-intent-qr.png`, fullPage: true });

    // The tester plays the payer's UPI app: the sandbox payer page, reached through the gateway's address.
    const payerUrl = (await frame.locator('#upi-payer-page').getAttribute('href'))!;
    expect(payerUrl.startsWith(`${gw.config.publicUrl}/upi-payer/upi_`)).toBe(true);
    const payerPage = await context.newPage();
    await payerPage.goto(payerUrl);
    await payerPage.getByText('Pay INR 499.00 to SVC Sandbox Merchant').waitFor();
    await payerPage.getByRole('button', { name: 'Approve' }).click();
    await payerPage.getByText('Payment approved.').waitFor();
    await payerPage.screenshot({ path: `${SCREENSHOTS}/upi-4-payer-page-approved.png`, fullPage: true });
    await payerPage.close();

    const paid = await waitForEvent(page, 'payment.succeeded');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    const [payment] = await paymentsOf(paid.paymentRequestId);
    expect(deepLink).toContain(`tr=pay_${payment.id}`);
    expect(paid).toMatchObject({ paymentId: payment.id, status: 'succeeded' });
    await page.screenshot({ path: `${SCREENSHOTS}/upi-5-intent-success.png`, fullPage: true });
    await page.close();
  }, 90_000);

  it('reloaded while the payer has not approved yet: the page waits again, then reports the outcome', async () => {
    const { page, frame } = await openUpi();
    await frame.getByRole('radio', { name: 'QR code: scan with any UPI app' }).check();
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await frame.getByRole('img', { name: 'QR code of the UPI payment link' }).waitFor();
    const payerUrl = (await frame.locator('#upi-payer-page').getAttribute('href'))!;

    // The frame alone reloads (the payer pressed reload in it, or the phone dropped the page).
    await page
      .frames()
      .find((f) => f.url().includes('/main'))!
      .evaluate(() => location.reload());
    await frame.getByRole('heading', { name: 'Waiting for your approval' }).waitFor();
    await expect(frame.getByRole('button', { name: /^Pay/ }).count()).resolves.toBe(0);
    await expect(frame.getByText('Already paid').count()).resolves.toBe(0);

    const payerPage = await context.newPage();
    await payerPage.goto(payerUrl);
    await payerPage.getByRole('button', { name: 'Approve' }).click();
    await payerPage.getByText('Payment approved.').waitFor();
    await payerPage.close();
    const paid = await waitForEvent(page, 'payment.succeeded');
    await frame.getByRole('heading', { name: 'Payment successful' }).waitFor();
    const payments = await paymentsOf(paid.paymentRequestId);
    expect(payments).toEqual([expect.objectContaining({ id: paid.paymentId, method: 'upi', status: 'succeeded' })]);
    await page.close();
  }, 90_000);

  it('has no serious accessibility violation (axe-core) on the UPI form, its errors and the QR wait', async () => {
    const axeContext = await browser.newContext({
      viewport: { width: 360, height: 800 },
      locale: 'en-IN',
      bypassCSP: true,
    });
    const { page, frame } = await openUpi(axeContext);
    expect(await audit(page)).toEqual([]);
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await frame.locator('#upi-upiId-error', { hasText: 'Enter your UPI ID' }).waitFor();
    expect(await audit(page)).toEqual([]);
    await frame.getByRole('radio', { name: 'QR code: scan with any UPI app' }).check();
    await frame.getByRole('button', { name: /^Pay/ }).click();
    await frame.getByRole('img', { name: 'QR code of the UPI payment link' }).waitFor();
    expect(await audit(page)).toEqual([]);
    await axeContext.close();
  }, 90_000);
});
