/**
 * Every page of the control panel's navigation, as found in the page (so pages added later are covered
 * too): a full-page screenshot kept in test-artifacts/panel/<page>.png, and no serious or critical
 * axe-core violation. The dashboard's charts and their text alternative match the reporting API.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, launchChromium } from '../helpers/browser.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { ROOT } from '../helpers/processes.js';
import { CARDS, card, createRequest, decideChallenge } from '../payments/fixtures.js';
import { axe, openPanel, signIn } from './panel-browser.js';

const ARTIFACTS = `${ROOT}/test-artifacts/panel`;
let gw: TestGateway;
let browser: Browser;
let m: TestMerchant;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  gw = await startTestGateway({ env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` } });
  m = await gw.merchant();
  // Some sandbox payments so that no page is empty: two approved, one declined.
  for (const [amount, pan] of [
    [40, CARDS.visa],
    [25, CARDS.mastercard],
    [10, CARDS.insufficientFunds],
  ] as const) {
    const id = await createRequest(gw, m, amount);
    await gw.call('POST', `/payments/creditCard/acme/${id}`, { apiKey: m.apiKey, body: card(pan) });
  }
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

/** Follows a navigation link and waits for its page's heading. */
async function visit(page: Page, hash: string): Promise<void> {
  await page.locator(`nav[aria-label="Sections"] a[href="${hash}"]`).click();
  await page.locator(`nav[aria-label="Sections"] a[href="${hash}"][aria-current="page"]`).waitFor();
  await page.locator('#content h1').waitFor();
}

describe('every page of the navigation', () => {
  it('has a screenshot and no serious accessibility violation', { timeout: 180_000 }, async () => {
    const page = await openPanel(browser, gw, true);
    await signIn(page, m);
    await page.locator('nav[aria-label="Sections"] a').first().waitFor();
    const hashes = await page
      .locator('nav[aria-label="Sections"] a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
    expect(hashes).toContain('#/dashboard');
    expect(hashes[0]).toBe('#/dashboard');
    for (const hash of hashes) {
      await visit(page, hash);
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `${ARTIFACTS}/${hash.replace(/^#\//, '')}.png`, fullPage: true });
      expect({ hash, violations: await axe(page) }).toEqual({ hash, violations: [] });
    }
  });
});

describe('on a phone', () => {
  it('no page scrolls sideways: wide tables scroll within themselves', { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${gw.config.publicUrl}/panel/`);
    await signIn(page, m);
    const sections = page.locator('nav[aria-label="Sections"] a');
    await sections.first().waitFor();
    for (const hash of await sections.evaluateAll((links) => links.map((a) => a.getAttribute('href')!))) {
      await visit(page, hash);
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: `${ARTIFACTS}/${hash.replace(/^#\//, '')}-phone.png`, fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect({ hash, overflow }).toEqual({ hash, overflow: 0 });
    }
    await context.close();
  });
});

describe('the dashboard', () => {
  it('draws the charts and gives their numbers as text, as the API counts them', { timeout: 120_000 }, async () => {
    const report = (await gw.call('GET', '/reports/dashboard', { apiKey: m.apiKey })).body as {
      days: Array<{ count: number; approved: number; declined: number }>;
      topDeclineReasons: Array<{ declineCode: string; count: number }>;
    };
    const sum = (pick: (d: { count: number; approved: number; declined: number }) => number) =>
      report.days.reduce((total, d) => total + pick(d), 0);
    expect(sum((d) => d.count)).toBe(3);
    expect(report.topDeclineReasons).toHaveLength(1);

    const page = await openPanel(browser, gw);
    await signIn(page, m);
    await visit(page, '#/dashboard');
    const figure = (name: string) => page.locator(`#dashboard-totals [data-figure="${name}"]`).innerText();
    expect(await figure('count')).toBe(String(sum((d) => d.count)));
    expect(await figure('approved')).toBe(String(sum((d) => d.approved)));
    expect(await figure('declined')).toBe(String(sum((d) => d.declined)));
    expect(await figure('rate')).toBe(`${((sum((d) => d.approved) / 3) * 100).toFixed(1)} %`);
    // The two uPlot charts are drawn, each with a summary for screen readers.
    expect(await page.locator('.chart[role="img"] canvas').count()).toBe(2);
    expect(await page.getByRole('img', { name: /^Payments per day: 3 in 30 days/ }).count()).toBe(1);

    // The text alternative: each chart's numbers as a table behind "Show the numbers".
    for (const summary of await page.locator('details summary').all()) await summary.click();
    const perDay = page.getByRole('table', { name: 'Payments per day' });
    const dayCounts = await perDay.locator('tbody tr td:nth-child(2)').allInnerTexts();
    expect(dayCounts.map(Number).reduce((a, b) => a + b, 0)).toBe(3);
    const declines = page.getByRole('table', { name: /^Top decline reasons/ });
    expect(await declines.locator('tbody tr td:first-child').allInnerTexts()).toEqual(
      report.topDeclineReasons.map((r) => r.declineCode),
    );
    expect(await declines.locator('tbody tr td:last-child').allInnerTexts()).toEqual(
      report.topDeclineReasons.map((r) => String(r.count)),
    );

    await page.getByRole('radio', { name: 'Last 7 days' }).check();
    await page.getByText(/^Test payments, .* \(UTC days\)\.$/).waitFor();
    await page.getByRole('img', { name: /^Payments per day: 3 in 7 days/ }).waitFor();
  });
});

describe('the dashboard, across currencies and failures', () => {
  it(
    'counts a 3-D Secure denial among the decline reasons, and charts each currency on its own',
    { timeout: 120_000 },
    async () => {
      const shop = await gw.merchant();
      const pay = async (amount: number, currency: string, pan: string) => {
        const id = await createRequest(gw, shop, amount, currency);
        return (await gw.call('POST', `/payments/creditCard/acme/${id}`, { apiKey: shop.apiKey, body: card(pan) }))
          .body;
      };
      await pay(40, 'EUR', CARDS.visa);
      await pay(4990, 'INR', CARDS.visa);
      await pay(10, 'EUR', CARDS.insufficientFunds);
      const challenged = await pay(12, 'EUR', CARDS.challengeApprove);
      // The ACS page is under PUBLIC_URL (localhost); the test reaches the gateway by its loopback address.
      await decideChallenge(gw, challenged.redirectUrl.replace(gw.config.publicUrl, gw.url), 'deny');

      const page = await openPanel(browser, gw, true);
      await signIn(page, shop);
      await visit(page, '#/dashboard');
      expect(await page.locator('#dashboard-totals [data-figure="declined"]').innerText()).toBe('2');
      const declines = page.getByRole('img', { name: /^Top decline reasons:/ });
      expect(await declines.getAttribute('aria-label')).toContain('3-D Secure failed 1');
      expect(await declines.locator('.decline-row').count()).toBe(2);

      // One chart per currency, each with one series (its own axis): EUR and INR are not one scale.
      const volume = page.locator('.volume-charts .currency-chart');
      expect(await volume.count()).toBe(2);
      for (const [i, currency] of ['EUR', 'INR'].entries()) {
        const chart = volume.nth(i);
        expect(await chart.getAttribute('aria-label')).toBe(`Approved volume in ${currency}`);
        expect(await chart.locator('canvas').count()).toBe(1);
        expect(await chart.locator('.u-legend .u-series:not(:first-child)').allInnerTexts()).toEqual([
          expect.stringContaining(currency),
        ]);
      }
      await page.getByRole('img', { name: /^Approved volume per day in INR: ₹4,990\.00 in all/ }).waitFor();
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}/dashboard-currencies.png`, fullPage: true });
      await page.context().close();
    },
  );
});

describe('loading the panel', () => {
  it(
    'has its own icon; no request fails and nothing is logged as an error but the signed-out session probe',
    { timeout: 120_000 },
    async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      let problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${new URL(response.url()).pathname}`);
      });
      await page.goto(`${gw.config.publicUrl}/panel/`);
      await page.getByLabel('Email').waitFor();
      await page.waitForLoadState('networkidle');
      const icon = await page.locator('link[rel="icon"]').getAttribute('href');
      expect(icon).toBeTruthy();
      const answer = await page.request.get(new URL(icon!, page.url()).toString());
      expect(answer.status()).toBe(200);
      expect(answer.headers()['content-type']).toMatch(/^image\/svg\+xml/);
      // Signed out, the one refusal is the panel asking whether a session exists: its 401 is the answer "no".
      expect(problems).toEqual([
        '401 /auth/session',
        'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
      ]);
      problems = [];
      await signIn(page, m);
      await page.locator('#content h1').waitFor();
      await page.reload();
      await page.locator('#content h1').waitFor();
      await page.waitForLoadState('networkidle');
      expect(problems).toEqual([]);
      await context.close();
    },
  );
});
