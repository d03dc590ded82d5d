/** What the panel's browser tests share: a fresh page on the panel, signing in, and axe-core's verdict. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import type { TestGateway, TestMerchant } from '../helpers/gateway.js';

/** A fresh browser profile on the panel; `forAxe`: axe-core is injected inline, which the panel's CSP rightly refuses. */
export async function openPanel(browser: Browser, gw: TestGateway, forAxe = false): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, bypassCSP: forAxe });
  const page = await context.newPage();
  // Confirmations (rotate, refund…) are accepted: the test is the user saying yes.
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${gw.url.replace('127.0.0.1', 'localhost')}/panel/`);
  return page;
}

export async function signIn(page: Page, m: TestMerchant, password = m.password): Promise<void> {
  await page.getByLabel('Email').fill(m.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The serious and critical violations axe-core finds on the page as it is now. */
export async function axe(page: Page): Promise<Array<{ id: string; impact: string }>> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: source });
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe.run();
    return (await run).violations.map((v) => ({ id: v.id as string, impact: v.impact as string }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
