/**
 * "Send a test event" on the panel's Developers page, in a real Chromium with axe-core: a developer sends
 * a sample event of a chosen type to the mode's notification URL and sees the receiver's answer, delivered
 * or not; a viewer is not offered the form. Screenshots go to .tmp/screenshots/panel-test-event-*.png.
 */
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SCREENSHOTS } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/gateway.js';
import { startReceiver, type Receiver } from '../notifications/receiver.js';
import { teammate } from './fixtures.js';
import { axe, openPanel, panelUnderTest, signIn } from './panel-browser.js';

const SLOW = 90_000;
const env = panelUnderTest();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver.close());

async function developersPage(email: string, forAxe = false): Promise<Page> {
  const page = await openPanel(env.browser, env.gw, forAxe);
  await signIn(page, { email, password: PASSWORD });
  await page.getByRole('heading', { name: 'Payment requests' }).waitFor();
  await page.getByRole('link', { name: 'Developers' }).click();
  await page.getByRole('heading', { name: 'Events' }).waitFor();
  return page;
}

describe('Send a test event on the Developers page', () => {
  it(
    'sends a signed sample of the chosen type and shows whether the receiver took it',
    async () => {
      const m = await env.gw.merchant();
      await env.gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: `${receiver.url}/panel-hook` } });
      const secret = (await env.gw.call('POST', '/settings/webhook-secret', { apiKey: m.apiKey })).body
        .secret as string;
      const developer = await teammate(env.gw, m, 'developer');
      const page = await developersPage(developer.email, true);

      await page.getByRole('heading', { name: 'Send a test event' }).waitFor();
      await page.getByLabel('Event type').selectOption('refund.succeeded');
      await page.getByRole('button', { name: 'Send test event' }).click();
      const delivered = page.getByRole('status').filter({ hasText: /^Delivered evt_test_/ });
      await delivered.waitFor();
      expect(await delivered.textContent()).toMatch(
        new RegExp(`^Delivered evt_test_[0-9a-f]{24} to ${receiver.url}/panel-hook: HTTP 200 in \\d+ ms\\.$`),
      );
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-test-event-1-delivered.png`, fullPage: true });

      const [received] = receiver.at('/panel-hook');
      vi.useFakeTimers({ toFake: ['Date'], now: env.gw.clock.now() });
      try {
        const event = new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
        expect(event).toMatchObject({ type: 'refund.succeeded', test: true, livemode: false });
      } finally {
        vi.useRealTimers();
      }

      receiver.answers.push({ status: 503 });
      await page.getByLabel('Event type').selectOption('payment.failed');
      await page.getByRole('button', { name: 'Send test event' }).click();
      const refused = page.getByRole('alert').filter({ hasText: /^Not delivered/ });
      await refused.waitFor();
      expect(await refused.textContent()).toBe(
        `Not delivered to ${receiver.url}/panel-hook: HTTP 503 (the receiver answered 503).`,
      );
      expect(receiver.at('/panel-hook').map((r) => JSON.parse(r.body).type)).toEqual([
        'refund.succeeded',
        'payment.failed',
      ]);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-test-event-2-refused.png`, fullPage: true });
      await page.context().close();
    },
    SLOW,
  );

  it(
    'says so when no notification URL is set, and offers a viewer no form',
    async () => {
      const m = await env.gw.merchant();
      const page = await developersPage(m.email);
      await page.getByText('Set a notification URL in Settings first: test events go there.').waitFor();
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByRole('alert').filter({ hasText: 'notifyUrl' }).waitFor();
      await page.context().close();

      const viewer = await teammate(env.gw, m, 'viewer');
      const viewerPage = await developersPage(viewer.email);
      expect(await viewerPage.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
      await viewerPage.context().close();
    },
    SLOW,
  );
});
