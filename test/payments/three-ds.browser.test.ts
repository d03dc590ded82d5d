/**
 * The 3-D Secure challenge of a host-to-host card payment in a real Chromium: the merchant's
 * server pays with successUrl / failureUrl on its own small page server, the payer's browser opens
 * redirectUrl (the ACS page under the gateway's address), presses Approve or Deny, and must land on the
 * merchant's page with paymentRequestId, paymentId and status in the query.
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENSHOTS, freePort, launchChromium, startPageServer, withJobRunner } from '../helpers/browser.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { CARDS, createRequest, h2hCard } from './fixtures.js';

let gw: TestGateway;
let merchant: TestMerchant;
let browser: Browser;
let shop: { origin: string; requested: string[]; server: Server };
const shopPages = new Map([
  ['/paid', '<!doctype html><title>Paid</title><h1>Thank you for your order</h1>'],
  ['/failed', '<!doctype html><title>Not paid</title><h1>Your payment did not go through</h1>'],
]);

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const [gatewayPort, shopPort] = [await freePort(), await freePort()];
  shop = await startPageServer(shopPort, shopPages);
  // The ACS page and the return link are under PUBLIC_URL: the address the payer's browser can reach.
  gw = await startTestGateway({
    env: { PORT: String(gatewayPort), PUBLIC_URL: `http://localhost:${gatewayPort}` },
  });
  merchant = await gw.merchant();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await new Promise((resolve) => shop?.server.close(resolve));
});

describe('a host-to-host 3-D Secure payment in Chromium', () => {
  for (const [decision, status, landing] of [
    ['Approve', 'succeeded', '/paid'],
    ['Deny', 'failed', '/failed'],
  ] as const) {
    it(`${decision} on the ACS page lands on the merchant's ${landing} with the ids and status`, async () => {
      const id = await createRequest(gw, merchant);
      const paid = await gw.call('POST', `/payments/h2h/${id}`, {
        apiKey: merchant.apiKey,
        body: {
          ...h2hCard(CARDS.challengeApprove),
          successUrl: `${shop.origin}/paid?order=42`,
          failureUrl: `${shop.origin}/failed`,
        },
      });
      expect(paid.status, paid.text).toBe(200);
      expect(paid.body).toMatchObject({ status: 'requires_action', challengeRequired: true });
      expect(paid.body.redirectUrl.startsWith(`${gw.config.publicUrl}/acs/`)).toBe(true);

      const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
      const page = await context.newPage();
      await page.goto(paid.body.redirectUrl);
      await page.getByRole('heading', { name: '3-D Secure authentication' }).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/h2h-3ds-${decision}.png`, fullPage: true });
      await withJobRunner(gw, async () => {
        await page.getByRole('button', { name: decision }).click();
        await page.waitForURL((url) => url.origin === shop.origin, { timeout: 20_000 });
      });
      await page.screenshot({ path: `${SCREENSHOTS}/h2h-3ds-${decision}-landed.png`, fullPage: true });

      const landed = new URL(page.url());
      expect(landed.pathname).toBe(landing);
      expect(Object.fromEntries(landed.searchParams)).toEqual({
        ...(decision === 'Approve' ? { order: '42' } : {}),
        paymentRequestId: String(id),
        paymentId: String(paid.body.paymentId),
        status,
      });
      await page
        .getByRole('heading', {
          name: decision === 'Approve' ? 'Thank you for your order' : 'Your payment did not go through',
        })
        .waitFor();
      // The merchant's page saw the same, and the gateway agrees.
      expect(shop.requested).toContain(`${landed.pathname}${landed.search}`);
      const payment = await gw.call('GET', `/payments/${paid.body.paymentId}`, { apiKey: merchant.apiKey });
      expect(payment.body.status).toBe(status);
      await context.close();
    });
  }
});
