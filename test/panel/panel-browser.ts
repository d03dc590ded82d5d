/** The control panel in Chromium, for the panel's browser tests: a fresh profile, sign-in, and axe-core. */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { freePort, launchChromium, SCREENSHOTS } from '../helpers/browser.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';

/**
 * Chromium and a gateway for one test file, started before its tests and stopped after them. The
 * panel is opened on localhost (a secure context, for its Secure cookie) at the gateway's PUBLIC_URL.
 */
export function panelUnderTest(): { gw: TestGateway; browser: Browser } {
  const env = {} as { gw: TestGateway; browser: Browser };
  beforeAll(async () => {
    env.browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
    const port = await freePort();
    env.gw = await startTestGateway({ env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}` } });
  }, 300_000);
  afterAll(async () => {
    await env.browser?.close();
    await env.gw?.close();
  });
  return env;
}

/** A fresh browser profile on the panel; `forAxe`: axe-core is injected inline, which the panel's CSP rightly refuses. */
export async function openPanel(browser: Browser, gw: TestGateway, forAxe = false): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, bypassCSP: forAxe });
  const page = await context.newPage();
  // Confirmations (rotate, refund…) are accepted: the test is the user saying yes.
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${gw.url.replace('127.0.0.1', 'localhost')}/panel/`);
  return page;
}

export async function signIn(page: Page, m: Pick<TestMerchant, 'email' | 'password'>, password = m.password) {
  await page.getByLabel('Email').fill(m.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The serious and critical axe-core violations of the page as it is now. */
export async function axe(page: Page): Promise<Array<{ id: string; impact: string }>> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: source });
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe.run();
    return (await run).violations.map((v) => ({ id: v.id as string, impact: v.impact as string }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
