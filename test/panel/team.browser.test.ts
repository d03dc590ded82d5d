/**
 * The team in a real Chromium: an owner invites a viewer in the panel, the test reads the invitation from
 * a real SMTP receiver, opens its link in a fresh browser, chooses a password and lands signed in as a
 * viewer (no refund button). Screenshots go to .tmp/screenshots/team-*.png.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, launchChromium, SCREENSHOTS } from '../helpers/browser.js';
import { startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.js';
import { startSmtpServer } from '../notifications/smtp.js';
import { CARDS, card, createRequest } from '../payments/fixtures.js';
import { invitationLink, session } from '../team/fixtures.js';
import { teammate } from './fixtures.js';
import { axe, signIn } from './panel-browser.js';

const SLOW = 90_000;
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
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(url);
  return page;
}

async function paidRequest(m: TestMerchant): Promise<number> {
  const id = await createRequest(gw, m, 25);
  const res = await gw.call('POST', `/payments/creditCard/acme/${id}`, { apiKey: m.apiKey, body: card(CARDS.visa) });
  expect(res.status, res.text).toBe(200);
  return id;
}

describe('the team page', () => {
  it(
    'an owner invites a viewer by e-mail; the invitee opens the link, sets a password and is signed in as a viewer',
    async () => {
      const m = await gw.merchant();
      const requestId = await paidRequest(m);
      const owner = await openPage(`${gw.config.publicUrl}/panel/`);
      await signIn(owner, m);
      await owner.getByRole('link', { name: String(requestId), exact: true }).click();
      // The owner may refund: the button the viewer must not have.
      await owner.getByRole('button', { name: 'Refund' }).waitFor();

      await owner.getByRole('link', { name: 'Team' }).click();
      await owner.getByRole('heading', { name: 'Team', exact: true }).waitFor();
      const email = `viewer-${Date.now()}@example.com`;
      await owner.getByLabel('Email address').fill(email);
      await owner.getByLabel('Role', { exact: true }).selectOption('viewer');
      await owner.getByRole('button', { name: 'Send invitation' }).click();
      await owner.getByRole('status').getByText(`An invitation was sent to ${email}.`).waitFor();
      await owner.getByRole('cell', { name: email, exact: true }).waitFor();
      await owner.screenshot({ path: `${SCREENSHOTS}/team-1-invited.png`, fullPage: true });

      await gw.runJobs();
      const mails = smtp.mails.filter((mail) => mail.to.includes(email));
      expect(mails).toHaveLength(1);
      const { link } = invitationLink(mails[0]);

      const invitee = await openPage(link);
      await invitee.getByRole('heading', { name: 'Join your team' }).waitFor();
      // The token leaves the address bar at once.
      expect(invitee.url()).not.toContain('token=');
      await invitee.getByLabel('Choose a password').fill('short');
      await invitee.getByLabel('Repeat the password').fill('short');
      await invitee.getByRole('button', { name: 'Join the team' }).click();
      await invitee
        .getByRole('alert')
        .getByText(/at least 12 characters/)
        .waitFor();
      await invitee.screenshot({ path: `${SCREENSHOTS}/team-2-accept-refused.png`, fullPage: true });
      await invitee.getByLabel('Choose a password').fill('a long enough viewer password');
      await invitee.getByLabel('Repeat the password').fill('a long enough viewer password');
      await invitee.getByRole('button', { name: 'Join the team' }).click();

      await invitee.getByRole('heading', { name: 'Payment requests' }).waitFor();
      await invitee.getByText(email).waitFor();
      await invitee.getByRole('link', { name: String(requestId), exact: true }).click();
      await invitee.getByRole('heading', { name: 'Payments' }).waitFor();
      expect(await invitee.getByRole('button', { name: 'Refund' }).count()).toBe(0);
      // The viewer reads the team but is offered no change.
      await invitee.getByRole('link', { name: 'Team' }).click();
      await invitee.getByRole('cell', { name: m.email, exact: true }).waitFor();
      expect(await invitee.getByRole('button', { name: 'Send invitation' }).count()).toBe(0);
      expect(await invitee.getByRole('button', { name: /^Remove / }).count()).toBe(0);
      await invitee.screenshot({ path: `${SCREENSHOTS}/team-3-viewer.png`, fullPage: true });

      // The link was single-use: opened again, it says so.
      const again = await openPage(link);
      await again.getByLabel('Choose a password').fill('another long password');
      await again.getByLabel('Repeat the password').fill('another long password');
      await again.getByRole('button', { name: 'Join the team' }).click();
      await again.getByRole('alert').getByText('This invitation link was already used.', { exact: false }).waitFor();

      for (const page of [owner, invitee, again]) await page.context().close();
    },
    SLOW,
  );

  it(
    'has no serious accessibility violation (axe-core) on the Team page and on the accept page with an error',
    async () => {
      const m = await gw.merchant();
      const owner = await openPage(`${gw.config.publicUrl}/panel/`, true);
      await signIn(owner, m);
      await owner.getByRole('link', { name: 'Team' }).click();
      await owner.getByRole('heading', { name: 'Team', exact: true }).waitFor();
      const email = `developer-${Date.now()}@example.com`;
      await owner.getByLabel('Email address').fill(email);
      await owner.getByLabel('Role', { exact: true }).selectOption('developer');
      await owner.getByRole('button', { name: 'Send invitation' }).click();
      await owner.getByRole('cell', { name: email, exact: true }).waitFor();
      expect(await axe(owner)).toEqual([]);

      await gw.runJobs();
      const { link } = invitationLink(smtp.mails.find((mail) => mail.to.includes(email))!);
      const invitee = await openPage(link, true);
      await invitee.getByLabel('Choose a password').fill('short');
      await invitee.getByLabel('Repeat the password').fill('short');
      await invitee.getByRole('button', { name: 'Join the team' }).click();
      await invitee
        .getByRole('alert')
        .getByText(/at least 12 characters/)
        .waitFor();
      expect(await axe(invitee)).toEqual([]);
      for (const page of [owner, invitee]) await page.context().close();
    },
    SLOW,
  );

  it(
    'an owner demotes a developer to viewer: the panel says first that their keys stop working, then that they did',
    async () => {
      const m = await gw.merchant();
      const dev = await teammate(gw, m, 'developer');
      const key = await gw.call('PUT', `/users/${dev.userId}/apikey`, await session(gw, dev.email));
      expect(key.status, key.text).toBe(200);
      const owner = await openPage(`${gw.config.publicUrl}/panel/`);
      const asked: string[] = [];
      owner.on('dialog', (dialog) => void asked.push(dialog.message()));
      await signIn(owner, m);
      await owner.getByRole('link', { name: 'Team' }).click();
      await owner.getByLabel(`Role of ${dev.email}`, { exact: true }).selectOption('viewer');
      await owner.getByRole('button', { name: `Change role of ${dev.email}` }).click();
      await owner.getByRole('status').getByText(`${dev.email} is now viewer. Their API key was revoked.`).waitFor();
      expect(asked).toEqual([`Make ${dev.email} a viewer? Viewers hold no API key: theirs stop working at once.`]);
      await owner.screenshot({ path: `${SCREENSHOTS}/team-4-demoted.png`, fullPage: true });
      expect((await gw.call('GET', '/ping', { apiKey: key.body })).status).toBe(401);
      await owner.context().close();
    },
    SLOW,
  );
});
