/**
 * The control panel in a real Chromium (playwright-core): sign-in and its refusals, the test-mode
 * marker, key rotation used by HTTP from the test, the exposed-key banner, a settings change, the
 * developers area, sign-out and expiry, and axe-core. Screenshots go to .tmp/screenshots/panel-*.png.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markKeyExposed } from '../../src/modules/api-keys/index.js';
import { SCREENSHOTS } from '../helpers/browser.js';
import type { TestGateway, TestMerchant } from '../helpers/gateway.js';
import { startReceiver } from '../notifications/receiver.js';
import { CARDS, card, createRequest } from '../payments/fixtures.js';
import { teammate } from './fixtures.js';
import { axe, closePanelSuite, openPanel as openPanelIn, signIn, startPanelSuite } from './panel-browser.js';

const SLOW = 60_000;
let gw: TestGateway;
let browser: Browser;

beforeAll(async () => ({ browser, gw } = await startPanelSuite()), 300_000);
afterAll(() => closePanelSuite({ browser, gw }));

const openPanel = (forAxe = false) => openPanelIn(browser, gw, forAxe);

const ping = async (apiKey: string) => (await gw.call('GET', '/ping', { apiKey })).status;

describe('signing in', () => {
  it(
    'says when the password is wrong, then signs in to test mode with a visible marker',
    async () => {
      const m = await gw.merchant();
      const page = await openPanel();
      await signIn(page, m, 'not the password');
      await page.getByRole('alert').getByText('The e-mail address or password is incorrect.').waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-1-sign-in-refused.png`, fullPage: true });
      await signIn(page, m);
      await page.getByRole('heading', { name: 'Payment requests' }).waitFor();
      await page.getByText(/^Test mode/).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-2-payments.png`, fullPage: true });
      // Live: the marker goes, and the panel's calls carry the mode.
      await page.getByLabel('Live').check();
      await page.getByRole('heading', { name: 'Payment requests' }).waitFor();
      expect(await page.getByText(/^Test mode/).count()).toBe(0);
      await page.context().close();
    },
    SLOW,
  );

  it(
    'tells the lock-out apart from a wrong password',
    async () => {
      const m = await gw.merchant();
      for (let i = 0; i < 10; i++)
        await gw.call('POST', '/auth/session', { body: { email: m.email, password: 'wrong' } });
      const page = await openPanel();
      await signIn(page, m);
      await page
        .getByRole('alert')
        .getByText(/this account is locked\. Try again in 30 minutes/)
        .waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-3-locked.png`, fullPage: true });
      await page.context().close();
    },
    SLOW,
  );

  it(
    'has no serious accessibility violation on the sign-in form (axe-core)',
    async () => {
      const page = await openPanel(true);
      await page.getByLabel('Email').waitFor();
      expect(await axe(page)).toEqual([]);
      await page.context().close();
    },
    SLOW,
  );
});

describe('signed in', () => {
  it(
    'rotates the test key: the new one is shown once and works, the old one is refused',
    async () => {
      const m = await gw.merchant();
      const page = await openPanel(true);
      await signIn(page, m);
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      await page.getByText(`${m.apiKey.slice(0, 16)}…`).waitFor();
      expect(await axe(page)).toEqual([]);
      await page.getByRole('button', { name: 'Rotate test key' }).click();
      const notice = page.getByRole('region', { name: 'New test key' });
      await notice.getByText('The previous test key stopped working at once').waitFor();
      const newKey = (await notice.locator('code').textContent())!;
      expect(newKey).toMatch(/^svc_test_sk_/);
      await notice.getByRole('button', { name: 'Copy' }).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-4-new-key.png`, fullPage: true });
      expect(await ping(newKey)).toBe(200);
      expect(await ping(m.apiKey)).toBe(401);
      expect(await axe(page)).toEqual([]);
      // Afterwards only the prefix.
      await page.reload();
      await page.getByText(`${newKey.slice(0, 16)}…`).waitFor();
      expect(await page.getByText(newKey).count()).toBe(0);
      await page.context().close();
    },
    SLOW,
  );

  it(
    'asks before generating a live key and, on a development store, says the next start will refuse',
    async () => {
      const m = await gw.merchant();
      const liveKeys = async () =>
        (
          await gw.db
            .selectFrom('api_keys')
            .select('id')
            .where('user_id', '=', m.userId)
            .where('mode', '=', 'live')
            .execute()
        ).length;
      const page = await openPanel(true);
      let dialogs = 0;
      page.on('dialog', () => void (dialogs += 1));
      await signIn(page, m);
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('button', { name: 'Generate live key' }).click();
      const confirmation = page.getByRole('region', { name: 'Generate a live key?' });
      await confirmation.waitFor();
      // The tests' gateway keeps its card key in its store: a development store.
      await confirmation
        .getByText(
          'This gateway runs on a development store: its card encryption key is kept in its own database. ' +
            'Once a live key exists, the next start of the gateway (npm start) refuses to run (exit 1)',
        )
        .waitFor();
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-4b-live-key-confirmation.png`, fullPage: true });

      // Cancelled: nothing generated, the question gone, the focus back on the button.
      await confirmation.getByRole('button', { name: 'Cancel' }).click();
      await confirmation.waitFor({ state: 'detached' });
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Generate live key');
      expect(await liveKeys()).toBe(0);
      expect(dialogs).toBe(0);

      await page.getByRole('button', { name: 'Generate live key' }).click();
      await page.getByRole('button', { name: 'Yes, generate the live key' }).click();
      const notice = page.getByRole('region', { name: 'New live key' });
      const liveKey = (await notice.locator('code').textContent())!;
      expect(liveKey).toMatch(/^svc_live_sk_/);
      expect(await liveKeys()).toBe(1);
      expect(await ping(liveKey)).toBe(200);
      // Rotating it asks again, and says the current one stops working.
      await page.getByRole('button', { name: 'Rotate live key' }).click();
      await page
        .getByRole('region', { name: 'Rotate the live key?' })
        .getByText('The current live key stops working at once')
        .waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      expect(await ping(liveKey)).toBe(200);
      await page.context().close();
    },
    SLOW,
  );

  it(
    'shows the exposed-key banner and rotates the key in one click',
    async () => {
      const m = await gw.merchant();
      const key = await gw.db
        .selectFrom('api_keys')
        .select('id')
        .where('user_id', '=', m.userId)
        .executeTakeFirstOrThrow();
      await markKeyExposed(gw.db, key.id, gw.clock.now());
      const page = await openPanel();
      await signIn(page, m);
      const banner = page.getByRole('alert').filter({ hasText: 'was exposed' });
      await banner.waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-5-exposed.png`, fullPage: true });
      await banner.getByRole('button', { name: 'Rotate the test key now' }).click();
      const newKey = (await page.getByRole('region', { name: 'New test key' }).locator('code').textContent())!;
      expect(await ping(newKey)).toBe(200);
      expect(await ping(m.apiKey)).toBe(401);
      expect(await page.getByText('was exposed').count()).toBe(0);
      await page.context().close();
    },
    SLOW,
  );

  it(
    'changes a setting',
    async () => {
      const m = await gw.merchant();
      const page = await openPanel();
      await signIn(page, m);
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByLabel('Business name').fill('Panel Coffee Roasters');
      // The form offers exactly the event types the gateway lists as choices.
      const offered = (await gw.call('GET', '/settings', { apiKey: m.apiKey })).body.availableEventTypes;
      expect(offered).toContain('api.version.deprecated');
      expect(
        await page
          .locator('input[type=checkbox][id^="type-"]')
          .evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value)),
      ).toEqual(offered);
      await page.getByLabel('Allowed checkout origins').fill('https://shop.example');
      await page.getByLabel('All event types').uncheck();
      await page.getByLabel('api.version.deprecated').uncheck();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Settings saved.').waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-6-settings.png`, fullPage: true });
      const settings = (await gw.call('GET', '/settings', { apiKey: m.apiKey })).body;
      expect(settings.businessName).toBe('Panel Coffee Roasters');
      expect(settings.checkoutOrigins).toEqual(['https://shop.example']);
      expect(settings.eventTypes).not.toContain('api.version.deprecated');
      expect(settings.eventTypes).toContain('payment.succeeded');
      await page.context().close();
    },
    SLOW,
  );

  it(
    'signs out, and an expired session goes back to sign-in with a message',
    async () => {
      const m = await gw.merchant();
      const page = await openPanel();
      await signIn(page, m);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are signed out.').waitFor();
      await signIn(page, m);
      await page.getByRole('heading', { name: 'Payment requests' }).waitFor();
      gw.clock.advance(31 * 60);
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByText('Your session has expired. Sign in again.').waitFor();
      await page.getByLabel('Email').waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-7-expired.png`, fullPage: true });
      await page.context().close();
    },
    SLOW,
  );
});

describe('payments and developers', () => {
  /** A sandbox card payment by HTTP with the merchant's key, as the merchant's server would make it. */
  async function pay(m: TestMerchant, amount: number, extra: Record<string, unknown> = {}) {
    const id = await createRequest(gw, m, amount);
    const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, {
      apiKey: m.apiKey,
      body: { ...card(CARDS.visa), ...extra },
    });
    expect(res.status, res.text).toBe(200);
    return { id, paymentId: res.body.paymentId as number };
  }

  it(
    'shows a sandbox payment, refunds it partially and captures a delayed one',
    async () => {
      const m = await gw.merchant();
      const paid = await pay(m, 40);
      const delayed = await pay(m, 25, { captureDelayHours: 2 });
      const page = await openPanel();
      await signIn(page, m);
      await page.getByRole('link', { name: String(paid.id), exact: true }).click();
      await page.getByRole('heading', { name: `Payment request ${paid.id}` }).waitFor();
      await page.getByLabel('Refund amount (EUR)').fill('15');
      await page.getByRole('button', { name: 'Refund' }).click();
      await page.getByRole('cell', { name: '€15.00' }).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-8-refunded.png`, fullPage: true });
      const refunded = (await gw.call('GET', `/payments/${paid.paymentId}`, { apiKey: m.apiKey })).body;
      expect(refunded.amountRefunded).toBe(15);

      await page.goto(`${page.url().split('#')[0]}#/payments/${delayed.id}`);
      await page.getByRole('button', { name: 'Capture' }).click();
      await page.getByText('succeeded').first().waitFor();
      const captured = (await gw.call('GET', `/payments/${delayed.paymentId}`, { apiKey: m.apiKey })).body;
      expect(captured.status).toBe('succeeded');
      await page.context().close();
    },
    SLOW,
  );

  it(
    'offers a viewer no refund, no key rotation and no audit log; the owner reads the refund in the audit log',
    async () => {
      const m = await gw.merchant();
      const paid = await pay(m, 20);
      const viewer = await teammate(gw, m, 'viewer');
      const page = await openPanel();
      await signIn(page, { ...m, email: viewer.email });
      await page.getByRole('link', { name: String(paid.id), exact: true }).click();
      await page.getByRole('heading', { name: 'Payments' }).waitFor();
      expect(await page.getByRole('button', { name: 'Refund' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByText('Viewers cannot change keys').first().waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-10-viewer.png`, fullPage: true });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are signed out.').waitFor();

      await gw.call('POST', `/payments/${paid.paymentId}/refunds`, { apiKey: m.apiKey, body: { amount: 2 } });
      await signIn(page, m);
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('cell', { name: 'payment.refunded' }).waitFor();
      await page.getByRole('cell', { name: m.email }).waitFor();
      await page.context().close();
    },
    SLOW,
  );

  it(
    'lists events with their delivery attempts and re-sends one',
    async () => {
      const receiver = await startReceiver();
      try {
        const m = await gw.merchant();
        await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: `${receiver.url}/hooks` } });
        await pay(m, 12);
        for (let pass = 0; pass < 10 && (await gw.runJobs()) > 0; pass += 1);
        const delivered = receiver.received.length;
        expect(delivered).toBeGreaterThan(0);
        const page = await openPanel();
        await signIn(page, m);
        await page.getByRole('link', { name: 'Developers' }).click();
        await page.getByRole('heading', { name: 'Events' }).waitFor();
        await page
          .getByRole('button', { name: /^Deliveries of evt_/ })
          .first()
          .click();
        await page.getByRole('cell', { name: '200', exact: true }).first().waitFor();
        await page.getByRole('button', { name: 'Re-send' }).click();
        await page.getByText(/is queued for delivery/).waitFor();
        await page.screenshot({ path: `${SCREENSHOTS}/panel-9-developers.png`, fullPage: true });
        for (let pass = 0; pass < 10 && (await gw.runJobs()) > 0; pass += 1);
        expect(receiver.received.length).toBe(delivered + 1);

        // The test payment shortcut opens the hosted checkout in a new tab, in test mode.
        const [tab] = await Promise.all([
          page.context().waitForEvent('page'),
          page.getByRole('button', { name: 'Create and open the checkout' }).click(),
        ]);
        await tab.waitForURL(/\/checkout\/main\?requestId=\d+&token=cst_/);
        await tab.getByLabel('Card number').waitFor();
        await page.context().close();
      } finally {
        await receiver.close();
      }
    },
    SLOW,
  );
});
