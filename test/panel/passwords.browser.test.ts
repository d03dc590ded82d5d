/**
 * Passwords in a real Chromium: "Forgot password?" on the sign-in page, the reset link read from a real
 * SMTP receiver and opened in a fresh browser, the new password chosen and signed in with; the "Change
 * password" form of the Account page; axe-core on each form with an error shown. Screenshots go to
 * .tmp/screenshots/passwords-*.png.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountLink } from '../auth/fixtures.js';
import { freePort, launchChromium, SCREENSHOTS } from '../helpers/browser.js';
import { PASSWORD, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startSmtpServer } from '../notifications/smtp.js';
import { axe, signIn } from './panel-browser.js';

const SLOW = 90_000;
const NEW_PASSWORD = 'my new and long password';
let gw: TestGateway;
let browser: Browser;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  smtp = await startSmtpServer();
  const port = await freePort();
  gw = await startTestGateway({
    env: { PORT: String(port), PUBLIC_URL: `http://localhost:${port}`, SMTP_URL: smtp.url },
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await smtp?.close();
});

/** `forAxe`: axe-core is injected inline, which the panel's CSP rightly refuses. */
async function openPage(url: string, forAxe = false): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, bypassCSP: forAxe });
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

describe('a forgotten password', () => {
  it(
    'is reset from the sign-in page with the e-mailed link, which works once; the new password signs in',
    async () => {
      const m = await gw.merchant();
      const page = await openPage(`${gw.config.publicUrl}/panel/`, true);
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
      await page.getByLabel('Email').fill(m.email);
      await page.getByRole('button', { name: 'Send the link' }).click();
      await page.getByRole('status').getByText(`If ${m.email} has an account`, { exact: false }).waitFor();
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/passwords-1-requested.png`, fullPage: true });

      await gw.runJobs();
      const mails = smtp.mails.filter((mail) => mail.to.includes(m.email));
      expect(mails).toHaveLength(1);
      const { link } = accountLink(mails[0], 'reset-password');

      const reset = await openPage(link, true);
      await reset.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      // The token leaves the address bar at once.
      expect(reset.url()).not.toContain('token=');
      await reset.getByLabel('New password', { exact: true }).fill('short');
      await reset.getByLabel('Repeat the new password').fill('short');
      await reset.getByRole('button', { name: 'Set the new password' }).click();
      await reset
        .getByRole('alert')
        .getByText(/at least 12 characters/)
        .waitFor();
      expect(await axe(reset)).toEqual([]);
      await reset.screenshot({ path: `${SCREENSHOTS}/passwords-2-refused.png`, fullPage: true });
      await reset.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await reset.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
      await reset.getByRole('button', { name: 'Set the new password' }).click();
      await reset.getByRole('status').getByText('Your password was changed', { exact: false }).waitFor();
      await reset.getByRole('link', { name: 'Sign in with the new password' }).click();
      await signIn(reset, m, NEW_PASSWORD);
      await reset.getByRole('heading', { name: 'Payment requests' }).waitFor();
      await reset.screenshot({ path: `${SCREENSHOTS}/passwords-3-signed-in.png`, fullPage: true });

      const again = await openPage(link);
      await again.getByLabel('New password', { exact: true }).fill('yet another long password');
      await again.getByLabel('Repeat the new password').fill('yet another long password');
      await again.getByRole('button', { name: 'Set the new password' }).click();
      await again.getByRole('alert').getByText('This link was already used.', { exact: false }).waitFor();
      for (const p of [page, reset, again]) await p.context().close();
    },
    SLOW,
  );
});

describe('the Account page', () => {
  it(
    'changes the password with the current one; another browser signed in as the same user is signed out',
    async () => {
      const m = await gw.merchant();
      const elsewhere = await openPage(`${gw.config.publicUrl}/panel/`);
      await signIn(elsewhere, m);
      await elsewhere.getByRole('heading', { name: 'Payment requests' }).waitFor();

      const page = await openPage(`${gw.config.publicUrl}/panel/`, true);
      await signIn(page, m);
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Change password' }).waitFor();
      await page.getByLabel('Current password').fill('not my password');
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('alert').getByText('The current password is incorrect.').waitFor();
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/passwords-4-wrong-current.png`, fullPage: true });

      await page.getByLabel('Current password').fill(PASSWORD);
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('status').getByText('Your password was changed.', { exact: false }).waitFor();
      // This browser stays signed in.
      await page.getByRole('link', { name: 'Payments' }).click();
      await page.getByRole('heading', { name: 'Payment requests' }).waitFor();

      // The other one is sent back to the sign-in form at its next request.
      await elsewhere.getByRole('link', { name: 'Customers' }).click();
      await elsewhere.getByText('Your session has expired. Sign in again.').waitFor();
      for (const p of [page, elsewhere]) await p.context().close();
    },
    SLOW,
  );
});
