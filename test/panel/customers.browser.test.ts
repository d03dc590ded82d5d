/**
 * The control panel's customers (list, search, create, edit, detail with totals; viewers read only) and
 * the developers area's received callbacks, in a real Chromium (playwright-core), with axe-core.
 * Screenshots go to .tmp/screenshots/panel-customers-*.png.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { postSigned } from '../callbacks/helpers.js';
import { SCREENSHOTS } from '../helpers/browser.js';
import type { TestMerchant } from '../helpers/gateway.js';
import { CARDS, card } from '../payments/fixtures.js';
import { teammate } from './fixtures.js';
import { axe, openPanel, panelUnderTest, signIn } from './panel-browser.js';

const SLOW = 60_000;
const env = panelUnderTest();

async function signedIn(m: Pick<TestMerchant, 'email' | 'password'>, forAxe = false): Promise<Page> {
  const page = await openPanel(env.browser, env.gw, forAxe);
  await signIn(page, m);
  await page.getByRole('heading', { name: 'Payment requests' }).waitFor();
  return page;
}

const goTo = (page: Page, hash: string) => page.goto(`${page.url().split('#')[0]}${hash}`);

async function createCustomer(m: TestMerchant, body: Record<string, unknown>): Promise<number> {
  const res = await env.gw.call('POST', '/customers', { apiKey: m.apiKey, body });
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}

describe('customers', () => {
  it(
    'creates a customer (the API’s refusal shown next to its field), finds it by search and edits it',
    async () => {
      const m = await env.gw.merchant();
      await createCustomer(m, { name: 'Someone Else', email: 'else@example.com' });
      const page = await signedIn(m);
      await page.getByRole('link', { name: 'Customers' }).click();
      await page.getByRole('heading', { name: 'Customers' }).waitFor();
      await page.getByRole('link', { name: 'New customer' }).click();

      await page.getByLabel('Name (required)').fill('Ada Lovelace');
      await page.getByLabel('E-mail (required)').fill('ada@example.com');
      await page.getByLabel('Phone').fill('12345');
      // The keyboard submits the form.
      await page.getByLabel('Member id').fill('ada-1');
      await page.getByLabel('Member id').press('Enter');
      const phone = page.getByLabel('Phone');
      await expect.poll(() => phone.getAttribute('aria-invalid')).toBe('true');
      const note = page.locator('#customer-phone-error');
      expect(await note.textContent()).toMatch(/phone/);
      expect(await phone.getAttribute('aria-describedby')).toContain('customer-phone-error');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('customer-phone');
      await page.screenshot({ path: `${SCREENSHOTS}/panel-customers-1-invalid.png`, fullPage: true });

      await phone.fill('441234567890');
      await page.getByRole('button', { name: 'Create customer' }).click();
      await page.getByRole('heading', { name: 'Ada Lovelace' }).waitFor();
      const created = (await env.gw.call('GET', '/customers?email=ada@example.com', { apiKey: m.apiKey })).body.data;
      expect(created).toMatchObject([
        { name: 'Ada Lovelace', email: 'ada@example.com', phone: '441234567890', memberId: 'ada-1', address: null },
      ]);
      const id = created[0].id as number;

      await goTo(page, '#/customers');
      await page.getByRole('link', { name: 'Someone Else' }).waitFor();
      await page.getByLabel('Search for').fill('ada@example.com');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('button', { name: 'Show all' }).waitFor();
      expect(await page.getByRole('link', { name: 'Someone Else' }).count()).toBe(0);
      await page.getByRole('cell', { name: 'ada-1' }).waitFor();
      await page.getByLabel('Search by').selectOption('memberId');
      await page.getByLabel('Search for').fill('nobody');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('No customer found.').waitFor();
      await page.getByLabel('Search for').fill('ada-1');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: 'Ada Lovelace' }).click();

      await page.getByRole('link', { name: 'Edit customer' }).click();
      await page.getByLabel('Name (required)').fill('Ada King');
      await page.getByLabel('Address').fill('12 St James’s Square, London');
      await page.getByLabel('Member id').fill('');
      await page.getByRole('button', { name: 'Save customer' }).click();
      await page.getByRole('heading', { name: 'Ada King' }).waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}/panel-customers-2-edited.png`, fullPage: true });
      const edited = (await env.gw.call('GET', `/customers/${id}`, { apiKey: m.apiKey })).body;
      expect(edited).toMatchObject({ name: 'Ada King', address: '12 St James’s Square, London', memberId: null });
      await page.context().close();
    },
    SLOW,
  );

  it(
    'shows a customer’s payment requests and their totals, with no serious axe-core violation',
    async () => {
      const m = await env.gw.merchant();
      const id = await createCustomer(m, { name: 'Grace Hopper', email: 'grace@example.com' });
      const request = async (amount: number) => {
        const res = await env.gw.call('POST', '/payment-requests', {
          apiKey: m.apiKey,
          body: { amount, currency: 'EUR', reference: `grace-${amount}`, customerId: id },
        });
        expect(res.status, res.text).toBe(200);
        return res.body.paymentRequestId as number;
      };
      const paid = await request(40);
      const open = await request(10);
      const payment = await env.gw.call('POST', `/payments/creditCard/acme/${paid}`, {
        apiKey: m.apiKey,
        body: card(CARDS.visa),
      });
      expect(payment.status, payment.text).toBe(200);
      const refund = await env.gw.call('POST', `/payments/${payment.body.paymentId}/refunds`, {
        apiKey: m.apiKey,
        body: { amount: 15 },
      });
      expect(refund.status, refund.text).toBe(200);

      const page = await signedIn(m, true);
      await page.getByRole('link', { name: 'Customers' }).click();
      await page.getByRole('link', { name: 'Grace Hopper' }).waitFor();
      expect(await axe(page)).toEqual([]);
      await page.getByRole('link', { name: 'Grace Hopper' }).click();
      await page.getByRole('heading', { name: 'Grace Hopper' }).waitFor();
      const totals = page.getByRole('table', { name: 'Payment requests of Grace Hopper per currency' });
      const cells = await totals.locator('tbody tr').first().locator('td').allTextContents();
      expect(cells).toEqual(['EUR', '2', '€50.00', '€40.00', '€15.00', '€25.00']);
      const requests = page.getByRole('table', { name: 'Payment requests of Grace Hopper, newest first' });
      await requests.getByRole('link', { name: String(open), exact: true }).waitFor();
      expect(await requests.locator('tbody tr').count()).toBe(2);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-customers-3-detail.png`, fullPage: true });
      expect(await axe(page)).toEqual([]);
      await requests.getByRole('link', { name: String(paid), exact: true }).click();
      await page.getByRole('heading', { name: `Payment request ${paid}` }).waitFor();
      await page.context().close();
    },
    SLOW,
  );

  it(
    'pages through the customers, newest first, from the keyboard',
    async () => {
      const m = await env.gw.merchant();
      for (let i = 1; i <= 21; i++) await createCustomer(m, { name: `Customer ${i}`, email: `c${i}@example.com` });
      const page = await signedIn(m);
      await goTo(page, '#/customers');
      const names = () => page.locator('tbody tr td:first-child').allTextContents();
      await page.getByRole('link', { name: 'Customer 21' }).waitFor();
      const first = await names();
      expect(first).toHaveLength(20);
      expect([first[0], first[19]]).toEqual(['Customer 21', 'Customer 2']);
      await page.getByRole('button', { name: 'Next page' }).press('Enter');
      await page.getByRole('link', { name: 'Customer 1', exact: true }).waitFor();
      expect(await names()).toEqual(['Customer 1']);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('customers-title');
      await page.context().close();
    },
    SLOW,
  );

  it(
    'offers a viewer no create or edit, and the API answers 403 to the viewer’s session',
    async () => {
      const m = await env.gw.merchant();
      const id = await createCustomer(m, { name: 'Read Only', email: 'read@example.com' });
      const viewer = await teammate(env.gw, m, 'viewer');
      const page = await signedIn({ email: viewer.email, password: m.password });
      await page.getByRole('link', { name: 'Customers' }).click();
      await page.getByRole('link', { name: 'Read Only' }).click();
      await page.getByRole('heading', { name: 'Read Only' }).waitFor();
      expect(await page.getByRole('link', { name: 'Edit customer' }).count()).toBe(0);
      await goTo(page, '#/customers');
      await page.getByRole('link', { name: 'Read Only' }).waitFor();
      expect(await page.getByRole('link', { name: 'New customer' }).count()).toBe(0);
      await goTo(page, '#/customers/new');
      await page.getByText('Viewers can read customers but not create or edit them.').waitFor();
      expect(await page.getByRole('button', { name: 'Create customer' }).count()).toBe(0);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-customers-4-viewer.png`, fullPage: true });

      // The panel's own session, CSRF token and all: the gateway refuses the change itself.
      const answers = await page.evaluate(async (customerId) => {
        const session = await (await fetch('/auth/session', { headers: { 'X-Panel-Mode': 'test' } })).json();
        const headers = {
          'X-Panel-Mode': 'test',
          'X-CSRF-Token': session.csrfToken,
          'Content-Type': 'application/json',
        };
        const send = async (method: string, path: string, body: unknown) => {
          const res = await fetch(path, { method, headers, body: JSON.stringify(body) });
          return { status: res.status, error: (await res.json()).error };
        };
        return [
          await send('POST', '/customers', { name: 'Nope', email: 'nope@example.com' }),
          await send('PATCH', `/customers/${customerId}`, { name: 'Nope' }),
        ];
      }, id);
      expect(answers).toEqual([
        { status: 403, error: 'INSUFFICIENT_PERMISSIONS' },
        { status: 403, error: 'INSUFFICIENT_PERMISSIONS' },
      ]);
      const unchanged = await env.gw.call('GET', '/customers', { apiKey: m.apiKey });
      expect(unchanged.body.data.map((c: { name: string }) => c.name)).toEqual(['Read Only']);
      await page.context().close();
    },
    SLOW,
  );
});

describe('developers area', () => {
  it(
    'lists received callbacks, newest first and a page at a time, with their signature result',
    async () => {
      const m = await env.gw.merchant();
      const signed = await postSigned(
        env.gw,
        '/callbacks/test/json',
        { eventId: 'panel-signed' },
        { headers: { 'x-api-key': m.apiKey } },
      );
      expect(signed.body).toMatchObject({ signatureValid: true });
      const forged = await postSigned(
        env.gw,
        '/callbacks/test/json',
        { eventId: 'panel-forged' },
        { signature: 'ab'.repeat(64), headers: { 'x-api-key': m.apiKey } },
      );
      expect(forged.body).toMatchObject({ signatureValid: false });

      // 19 unsigned test calls after them: a page holds 20, so the signed one is on the second page.
      for (let i = 1; i <= 19; i++) {
        const res = await env.gw.call('POST', '/callbacks/test/json', {
          body: { eventId: `filler-${i}` },
          apiKey: m.apiKey,
        });
        expect(res.status, res.text).toBe(200);
      }

      const page = await signedIn(m);
      await page.getByRole('link', { name: 'Developers' }).click();
      const table = page.getByRole('table', { name: 'Provider callbacks and test callbacks, newest first' });
      const rows = async () => {
        await table.waitFor();
        return table
          .locator('tbody tr')
          .evaluateAll((trs) =>
            trs.map((tr) => [...tr.querySelectorAll('td')].slice(1, 5).map((td) => td.textContent)),
          );
      };
      const first = await rows();
      expect(first).toHaveLength(20);
      expect(first[0]).toEqual(['test/json', 'filler-19', '—', 'Not signed']);
      expect(first[19]).toEqual(['test/json', 'panel-forged', '—', 'Invalid']);
      await page.getByRole('button', { name: 'Next page of callbacks' }).press('Enter');
      await page.getByRole('cell', { name: 'panel-signed' }).waitFor();
      expect(await rows()).toEqual([['test/json', 'panel-signed', '—', 'Valid']]);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('callbacks-title');
      expect(await page.getByRole('button', { name: 'Next page of callbacks' }).count()).toBe(0);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-customers-5-callbacks.png`, fullPage: true });
      await page.context().close();
    },
    SLOW,
  );
});
