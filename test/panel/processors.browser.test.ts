/**
 * The panel's Processors page, in a real Chromium with axe-core: a developer connects Stripe (its
 * credentials typed once, never shown again), changes its slots and priority and removes it; a viewer
 * sees the connections read-only. Screenshots go to .tmp/screenshots/panel-processors-*.png.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SCREENSHOTS } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/gateway.js';
import { STRIPE_TEST } from '../processor-connections/fixtures.js';
import { teammate } from './fixtures.js';
import { axe, openPanel, panelUnderTest, signIn } from './panel-browser.js';

const SLOW = 90_000;
const env = panelUnderTest();

async function processorsPage(email: string, forAxe = false): Promise<Page> {
  const page = await openPanel(env.browser, env.gw, forAxe);
  await signIn(page, { email, password: PASSWORD });
  await page.getByRole('heading', { name: 'Payment requests' }).waitFor();
  await page.getByRole('link', { name: 'Processors' }).click();
  await page.getByRole('heading', { name: 'Processors', level: 1 }).waitFor();
  return page;
}

const rowsOf = (page: Page) =>
  page
    .getByRole('table', { name: 'Processor connections, highest priority first' })
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));

describe('the Processors page', () => {
  it(
    'connects Stripe, changes its slots and priority, and removes it',
    async () => {
      const m = await env.gw.merchant();
      const developer = await teammate(env.gw, m, 'developer');
      const page = await processorsPage(developer.email, true);
      await page.getByText('No processor connected in this mode.').waitFor();
      expect(await axe(page)).toEqual([]);

      await page.getByLabel('Processor', { exact: true }).selectOption('stripe');
      await page.getByLabel('Name (optional)').fill('Stripe EU');
      await page.getByLabel('Secret key').fill(STRIPE_TEST.secretKey);
      await page.getByLabel('Webhook signing secret').fill(STRIPE_TEST.webhookSecret);
      await page.getByRole('group', { name: 'Slots it serves' }).getByLabel('h2h').check();
      await page.getByLabel('Priority', { exact: true }).fill('5');
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-processors-1-form.png`, fullPage: true });
      // From the keyboard: the button sits at the foot of a long form, where a click's press and release
      // can land on different elements while the page settles its scroll.
      await page.getByRole('button', { name: 'Connect' }).press('Enter');
      await page.getByRole('status').getByText('Stripe is connected for acme, h2h.').waitFor();

      const [connection] = (await env.gw.call('GET', '/processor-connections', { apiKey: m.apiKey })).body.data;
      expect(connection).toMatchObject({ processor: 'stripe', name: 'Stripe EU', slots: ['acme', 'h2h'], priority: 5 });
      // The page shows no credential, and the form is empty again.
      const html = await page.content();
      expect(html).not.toContain(STRIPE_TEST.secretKey);
      expect(html).not.toContain(STRIPE_TEST.webhookSecret);
      expect(await rowsOf(page)).toEqual([
        [
          'Stripe EU',
          'Stripe',
          expect.stringContaining('Slots of Stripe EU'),
          '',
          'OK',
          expect.any(String),
          'SaveRemove',
        ],
      ]);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-processors-2-connected.png`, fullPage: true });

      const slots = page.getByRole('group', { name: 'Slots of Stripe EU' });
      await slots.getByLabel('acme').uncheck();
      await slots.getByLabel('globex').check();
      await page.getByLabel('Priority of Stripe EU', { exact: true }).fill('7');
      await page.getByRole('button', { name: 'Save slots and priority of Stripe EU' }).click();
      await page.getByRole('status').getByText('Stripe EU was saved.').waitFor();
      const saved = await env.gw.call('GET', `/processor-connections/${connection.connectionId}`, { apiKey: m.apiKey });
      expect(saved.body).toMatchObject({ slots: ['globex', 'h2h'], priority: 7 });

      // Soft declines: the codes retried on the next connection, a merchant setting of this mode.
      await page.getByLabel('Decline codes retried on the next connection').fill('05, 91');
      await page.getByRole('button', { name: 'Save decline codes' }).click();
      await page.getByRole('status').getByText('Declines 05, 91 are retried.').waitFor();
      expect((await env.gw.call('GET', '/settings', { apiKey: m.apiKey })).body.retryDeclineCodes).toEqual([
        '05',
        '91',
      ]);
      expect(await page.getByLabel('Decline codes retried on the next connection').inputValue()).toBe('05, 91');
      expect(await axe(page)).toEqual([]);

      // openPanel accepts the confirmation.
      await page.getByRole('button', { name: 'Remove Stripe EU' }).click();
      await page.getByRole('status').getByText('Stripe EU was removed.').waitFor();
      await page.getByText('No processor connected in this mode.').waitFor();
      expect((await env.gw.call('GET', '/processor-connections', { apiKey: m.apiKey })).body.data).toEqual([]);
      await page.context().close();
    },
    SLOW,
  );

  it(
    'shows a viewer the connections and their health, without a form or buttons',
    async () => {
      const m = await env.gw.merchant();
      await env.gw.call('POST', '/processor-connections', {
        apiKey: m.apiKey,
        body: { processor: 'sandbox', name: 'Sandbox', credentials: {}, slots: ['acme', 'globex'], priority: 2 },
      });
      const viewer = await teammate(env.gw, m, 'viewer');
      const page = await processorsPage(viewer.email, true);
      await page.getByRole('table', { name: 'Processor connections, highest priority first' }).waitFor();
      expect(await rowsOf(page)).toEqual([
        ['Sandbox', 'Built-in sandbox', 'acme, globex', '2', 'OK', expect.any(String)],
      ]);
      expect(
        await page
          .getByRole('button')
          .filter({ hasText: /Connect|Save|Remove/ })
          .count(),
      ).toBe(0);
      expect(await page.getByRole('heading', { name: 'Connect a processor' }).count()).toBe(0);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-processors-3-viewer.png`, fullPage: true });
      await page.context().close();
    },
    SLOW,
  );
});
