/**
 * The panel's payment lists and detail in a real Chromium (playwright-core): filters narrow the list and
 * survive a reload, the CSV export holds exactly the filtered list, a paid request's timeline shows its
 * state changes and notification attempt, and axe-core finds no serious violation.
 * Screenshots go to .tmp/screenshots/panel-payments-*.png.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENSHOTS } from '../helpers/browser.js';
import type { TestGateway, TestMerchant } from '../helpers/gateway.js';
import { startReceiver } from '../notifications/receiver.js';
import { CARDS, card, createRequest } from '../payments/fixtures.js';
import { axe, closePanelSuite, openPanel, panelUrl, signIn, startPanelSuite } from './panel-browser.js';

const SLOW = 90_000;
let gw: TestGateway;
let browser: Browser;

beforeAll(async () => ({ browser, gw } = await startPanelSuite()), 300_000);
afterAll(() => closePanelSuite({ browser, gw }));

/** A paid request: a sandbox card payment by HTTP with the merchant's key. */
async function paid(m: TestMerchant, amount: number): Promise<number> {
  const id = await createRequest(gw, m, amount);
  const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, { apiKey: m.apiKey, body: card(CARDS.visa) });
  expect(res.status, res.text).toBe(200);
  return id;
}

/** The ids in the first column of the listed table, top to bottom. */
const listedIds = async (page: Page) =>
  (await page.locator('#results tbody tr td:first-child').allTextContents()).map(Number);

async function applyFilters(page: Page, caption: string) {
  await page.getByRole('button', { name: 'Apply filters' }).press('Enter');
  await page.locator('caption', { hasText: caption }).waitFor();
}

describe('payment request lists', () => {
  it(
    'narrow by status and amount, keep the filters over a reload, and export exactly the filtered list',
    async () => {
      const m = await gw.merchant();
      const big = await paid(m, 40);
      const small = await paid(m, 12);
      const open = await createRequest(gw, m, 99);
      const page = await openPanel(browser, gw, true);
      await signIn(page, m);
      await page.getByRole('heading', { name: 'Payment requests' }).waitFor();
      await page.locator('caption').waitFor();
      expect(await listedIds(page)).toEqual([open, small, big]);

      await page.getByLabel('Status').selectOption('paid');
      await applyFilters(page, 'Payment requests, filtered');
      expect(await listedIds(page)).toEqual([small, big]);
      expect(page.url()).toContain('#/payments?status=paid');

      // An amount needs its currency: the API's refusal is shown, on the field it names.
      await page.getByLabel('Amount from').fill('20');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page
        .getByRole('alert')
        .getByText(/amountFrom and amountTo need currency/)
        .waitFor();
      expect(await page.getByLabel('Currency').getAttribute('aria-invalid')).toBe('true');

      await page.getByLabel('Currency').fill('eur');
      await applyFilters(page, 'Payment requests, filtered');
      expect(await listedIds(page)).toEqual([big]);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-payments-1-filtered.png`, fullPage: true });

      await page.reload();
      await page.locator('caption', { hasText: 'Payment requests, filtered' }).waitFor();
      expect(await listedIds(page)).toEqual([big]);
      expect(await page.getByLabel('Status').inputValue()).toBe('paid');
      expect(await page.getByLabel('Amount from').inputValue()).toBe('20');

      // The export, downloaded by the browser, holds the rows shown, and those the API lists.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export CSV' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^payment-requests-.*\.csv$/);
      const lines = readFileSync(await download.path(), 'utf8')
        .trim()
        .split('\r\n');
      expect(lines[0]).toMatch(/^paymentRequestId,/);
      const exported = lines.slice(1).map((line) => Number(line.split(',')[0]));
      expect(exported).toEqual(await listedIds(page));
      const api = await gw.call('GET', '/payment-requests?status=paid&currency=EUR&amountFrom=20', {
        apiKey: m.apiKey,
      });
      expect(exported).toEqual(api.body.data.map((r: { paymentRequestId: number }) => r.paymentRequestId));
      await page.getByText(/^Downloaded payment-requests-/).waitFor();
      await page.context().close();
    },
    SLOW,
  );

  it(
    'pages through the list, narrows it to a day range, and lists payment attempts with the same filters',
    async () => {
      const m = await gw.merchant();
      const ids = [];
      for (let i = 0; i < 21; i++) ids.unshift(await createRequest(gw, m, 5 + i));
      const page = await openPanel(browser, gw);
      await signIn(page, m);
      await page.locator('caption').waitFor();
      expect(await listedIds(page)).toEqual(ids.slice(0, 20));
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.locator('caption', { hasText: 'later page' }).waitFor();
      expect(await listedIds(page)).toEqual(ids.slice(20));
      await page.getByRole('link', { name: 'First page' }).click();
      await page.locator('caption', { hasText: /newest first$/ }).waitFor();

      // A day range, in the reader's days: the day they were made lists them, the day before nothing.
      const created = new Date(
        (await gw.call('GET', `/payment-requests/${ids[0]}`, { apiKey: m.apiKey })).body.createDate,
      );
      const day = (date: Date) =>
        `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
      const before = day(new Date(created.getFullYear(), created.getMonth(), created.getDate() - 1));
      await page.getByLabel('Created from').fill(day(created));
      await page.getByLabel('Created to').fill(day(created));
      await applyFilters(page, 'Payment requests, filtered');
      expect(await listedIds(page)).toEqual(ids.slice(0, 20));
      await page.getByLabel('Created from').fill(before);
      await page.getByLabel('Created to').fill(before);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('Nothing matches these filters.').waitFor();

      const request = await paid(m, 33);
      await page.goto(`${panelUrl(gw)}#/payments/attempts?status=succeeded`);
      await page.getByRole('heading', { name: 'Payments', exact: true }).waitFor();
      await page.locator('caption', { hasText: 'Payments, filtered' }).waitFor();
      expect(await page.locator('#results tbody tr').count()).toBe(1);
      await page.getByRole('cell', { name: String(request), exact: true }).waitFor();
      await page.context().close();
    },
    SLOW,
  );
});

describe('what a merchant works from', () => {
  it(
    'lists method, card, payer, captured and refunded amounts with a readable status; searches by e-mail and last 4; links every id',
    async () => {
      const m = await gw.merchant();
      const pay = async (number: string, who: { name: string; email: string }) => {
        const id = await createRequest(gw, m, 30);
        const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, {
          apiKey: m.apiKey,
          body: { ...card(number), ...who },
        });
        expect(res.status, res.text).toBe(200);
        return { id, paymentId: res.body.paymentId as number };
      };
      const ada = await pay(CARDS.visa, { name: 'Ada Lovelace', email: 'ada@example.com' });
      const bob = await pay(CARDS.mastercard, { name: 'Bob Builder', email: 'bob@example.com' });
      const refund = await gw.call('POST', `/payments/${ada.paymentId}/refunds`, {
        apiKey: m.apiKey,
        body: { amount: 10 },
      });
      expect(refund.status, refund.text).toBe(200);
      const unpaid = await createRequest(gw, m, 15);

      const page = await openPanel(browser, gw, true);
      await signIn(page, m);
      await page.locator('caption').waitFor();
      // The requests list: the method and payer of each request's last attempt (none yet: empty), and a
      // part-refunded request reads as such, not as partially_refunded.
      const requestRow = (id: number) =>
        page.locator('#results tbody tr').filter({ has: page.getByRole('link', { name: String(id), exact: true }) });
      expect(await page.locator('#results thead th').allInnerTexts()).toEqual([
        'Id',
        'Reference',
        'Method',
        'Payer',
        'Amount',
        'Paid',
        'Refunded',
        'Status',
        'Created',
      ]);
      expect(await requestRow(ada.id).locator('td').allInnerTexts()).toEqual([
        String(ada.id),
        expect.any(String),
        'Visa •••• 4242',
        'Ada Lovelace\nada@example.com',
        '€30.00',
        '€30.00',
        '€10.00',
        'Partially refunded',
        expect.any(String),
      ]);
      expect(await requestRow(bob.id).locator('td').nth(2).innerText()).toBe('Mastercard •••• 4444');
      expect(await requestRow(bob.id).locator('td').nth(3).innerText()).toBe('Bob Builder\nbob@example.com');
      expect((await requestRow(unpaid).locator('td').allInnerTexts()).slice(2, 4)).toEqual(['', '']);
      expect(await page.getByText('partially_refunded').count()).toBe(0);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-payments-2-requests.png`, fullPage: true });

      await page
        .getByRole('navigation', { name: 'Lists' })
        .getByRole('link', { name: 'Payments', exact: true })
        .click();
      await page.locator('caption', { hasText: /^Payments, newest first/ }).waitFor();
      const row = (paymentId: number) =>
        page
          .locator('#results tbody tr')
          .filter({ has: page.getByRole('link', { name: String(paymentId), exact: true }) });
      expect(await row(ada.paymentId).locator('td').allInnerTexts()).toEqual([
        String(ada.paymentId),
        String(ada.id),
        'Visa •••• 4242',
        'Ada Lovelace\nada@example.com',
        '€30.00',
        '€30.00',
        '€10.00',
        'Partially refunded',
        '',
        expect.any(String),
      ]);
      expect(await row(bob.paymentId).locator('td').nth(2).innerText()).toBe('Mastercard •••• 4444');
      expect(await row(bob.paymentId).locator('td').nth(7).innerText()).toBe('Succeeded');
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-payments-3-details.png`, fullPage: true });

      // Search: the payer's e-mail in any case, then the card's last 4 with it.
      await page.getByLabel('Payer e-mail').fill('BOB@example.com');
      await applyFilters(page, 'Payments, filtered');
      expect(await listedIds(page)).toEqual([bob.paymentId]);
      expect(page.url()).toContain('payerEmail=BOB%40example.com');
      await page.getByLabel('Payer e-mail').fill('ada@example.com');
      await page.getByLabel('Card last 4').fill('4444');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('Nothing matches these filters.').waitFor();
      await page.getByLabel('Card last 4').fill('4242');
      await applyFilters(page, 'Payments, filtered');
      expect(await listedIds(page)).toEqual([ada.paymentId]);
      // Last 4 alone would read every payment: the API asks for dates, on the field it names.
      await page.getByLabel('Payer e-mail').fill('');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page
        .getByRole('alert')
        .getByText(/cardLast4 needs/)
        .waitFor();
      expect(await page.getByLabel('Created from').getAttribute('aria-invalid')).toBe('true');

      // The payment id opens the payment's page; from there its request's page, whose payment ids link back.
      await page.goto(`${panelUrl(gw)}#/payments/attempts`);
      await page.getByRole('link', { name: String(ada.paymentId), exact: true }).click();
      await page.getByRole('heading', { name: `Payment ${ada.paymentId}` }).waitFor();
      const facts = page.locator('dl.facts');
      await facts.getByText('Visa •••• 4242').waitFor();
      await facts.getByText('ada@example.com').waitFor();
      expect(await facts.locator('dd').first().innerText()).toBe('Partially refunded');
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-payments-4-payment.png`, fullPage: true });
      await page.getByRole('link', { name: `Payment request ${ada.id}` }).click();
      await page.getByRole('heading', { name: `Payment request ${ada.id}` }).waitFor();
      expect(await page.locator('dl.facts dd').nth(2).innerText()).toBe('Partially refunded');
      const attempt = page.getByRole('table', { name: `Payments of request ${ada.id}` }).locator('tbody tr');
      expect(await attempt.locator('td').nth(2).innerText()).toBe('Visa •••• 4242');
      expect(await attempt.locator('td').nth(3).innerText()).toBe('Ada Lovelace\nada@example.com');
      await attempt.getByRole('link', { name: String(ada.paymentId), exact: true }).click();
      await page.getByRole('heading', { name: `Payment ${ada.paymentId}` }).waitFor();
      await page.context().close();
    },
    SLOW,
  );
});

describe('payment request detail', () => {
  it(
    "shows a paid request's timeline: created, its state changes and its notification attempt, in order",
    async () => {
      const receiver = await startReceiver();
      try {
        const m = await gw.merchant();
        await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: `${receiver.url}/hooks` } });
        const id = await paid(m, 30);
        for (let pass = 0; pass < 10 && (await gw.runJobs()) > 0; pass += 1);
        expect(receiver.received.length).toBeGreaterThan(0);

        const page = await openPanel(browser, gw, true);
        await signIn(page, m);
        await page.getByRole('link', { name: String(id), exact: true }).click();
        const timeline = page.getByRole('region', { name: 'Timeline' });
        await timeline.waitFor();
        const items = await timeline.getByRole('listitem').allTextContents();
        expect(items[0]).toContain('Created');
        const succeeded = items.findIndex((text) => text.includes('State change: payment.succeeded'));
        const attempt = items.findIndex((text) => text.includes('Notification attempt delivered'));
        expect(succeeded).toBeGreaterThan(0);
        expect(attempt).toBeGreaterThan(succeeded);
        expect(items[attempt]).toContain(`${receiver.url}/hooks answered HTTP 200`);
        // Every entry has its time, oldest first.
        const times = await timeline
          .locator('time')
          .evaluateAll((els) => els.map((el) => el.getAttribute('datetime')!));
        expect(times).toHaveLength(items.length);
        expect([...times].sort()).toEqual(times);
        expect(await axe(page)).toEqual([]);
        await page.screenshot({ path: `${SCREENSHOTS}/panel-payments-2-timeline.png`, fullPage: true });
        await page.context().close();
      } finally {
        await receiver.close();
      }
    },
    SLOW,
  );
});
