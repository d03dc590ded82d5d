/**
 * A signed-in control panel in a real Chromium, for the panel's browser tests: a fresh browser profile,
 * the sign-in form, and axe-core's serious violations.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { freePort, launchChromium, SCREENSHOTS } from '../helpers/browser.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';

export interface PanelSuite {
  browser: Browser;
  gw: TestGateway;
}

/** Chromium and a gateway whose public address is localhost (the origin the panel's cookie is set for). */
export async function startPanelSuite(): Promise<PanelSuite> {
  const browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const port = await freePort();
  const gw = await startTestGateway({ env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` } });
  return { browser, gw };
}

export async function closePanelSuite(suite: Partial<PanelSuite>): Promise<void> {
  await suite.browser?.close();
  await suite.gw?.close();
}

/** The same, started before the file's tests and stopped after them; read `gw` and `browser` in the tests. */
export function panelUnderTest(): PanelSuite {
  const suite = {} as PanelSuite;
  beforeAll(async () => Object.assign(suite, await startPanelSuite()), 300_000);
  afterAll(() => closePanelSuite(suite));
  return suite;
}

/** The panel's address (localhost, the origin its cookie is set for). */
export const panelUrl = (gw: TestGateway) => `${gw.url.replace('127.0.0.1', 'localhost')}/panel/`;

/** A fresh browser profile on the panel; `forAxe`: axe-core is injected inline, which the panel's CSP rightly refuses. */
export async function openPanel(browser: Browser, gw: TestGateway, forAxe = false): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, bypassCSP: forAxe });
  const page = await context.newPage();
  // Confirmations (rotate, refund…) are accepted: the test is the user saying yes.
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(panelUrl(gw));
  return page;
}

export async function signIn(
  page: Page,
  m: Pick<TestMerchant, 'email' | 'password'>,
  password = m.password,
): Promise<void> {
  await page.getByLabel('Email').fill(m.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The serious and critical violations axe-core finds on the page as it stands. */
export async function axe(page: Page): Promise<Array<{ id: string; impact: string }>> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: source });
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe.run();
    return (await run).violations.map((v) => ({ id: v.id as string, impact: v.impact as string }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
