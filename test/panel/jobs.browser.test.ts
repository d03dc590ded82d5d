/**
 * Failed jobs on the panel's Developers page, in a real Chromium with axe-core: a developer sees the
 * merchant's failed job and retries it; a viewer sees it without a Retry button. Screenshots go to
 * .tmp/screenshots/panel-jobs-*.png.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SCREENSHOTS } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/gateway.js';
import { expiryJob, failedExpiry } from '../jobs/fixtures.js';
import { teammate } from './fixtures.js';
import { axe, openPanel, panelUnderTest, signIn } from './panel-browser.js';

const SLOW = 90_000;
const env = panelUnderTest();

async function developersPage(email: string, forAxe = false): Promise<Page> {
  const page = await openPanel(env.browser, env.gw, forAxe);
  await signIn(page, { email, password: PASSWORD });
  await page.getByRole('heading', { name: 'Payment requests' }).waitFor();
  await page.getByRole('link', { name: 'Developers' }).click();
  await page.getByRole('heading', { name: 'Failed jobs' }).waitFor();
  return page;
}

describe('failed jobs on the Developers page', () => {
  it(
    'lists the merchant’s failed job and runs it again with Retry',
    async () => {
      const m = await env.gw.merchant();
      const failed = await failedExpiry(env.gw, m);
      await failedExpiry(env.gw, await env.gw.merchant());
      const developer = await teammate(env.gw, m, 'developer');

      const page = await developersPage(developer.email, true);
      const table = page.getByRole('table', { name: 'Failed jobs, newest first' });
      await table.waitFor();
      const cells = await table
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
      // Only this merchant's job; the other merchant's failed too.
      expect(cells).toEqual([
        [
          String(failed.jobId),
          'Payment request expiry',
          `Payment request ${failed.requestId}`,
          '10',
          expect.any(String),
          'could not extend file: No space left on device',
          'Retry',
        ],
      ]);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-jobs-1-failed.png`, fullPage: true });

      await page.getByRole('button', { name: `Retry job ${failed.jobId}` }).click();
      await page.getByRole('status').getByText(`Job ${failed.jobId} will run again within a few seconds.`).waitFor();
      await page.getByText('No failed jobs.').waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('failed-jobs-title');
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}/panel-jobs-2-retried.png`, fullPage: true });

      await env.gw.runJobs();
      expect(await expiryJob(env.gw.db, failed.requestId)).toMatchObject({ completed_at: expect.any(Date) });
      const request = await env.gw.db
        .selectFrom('payment_requests')
        .select('status')
        .where('id', '=', failed.requestId)
        .executeTakeFirstOrThrow();
      expect(request.status).toBe('expired');
      await page.context().close();
    },
    SLOW,
  );

  it(
    'shows a viewer the failed job without a Retry button',
    async () => {
      const m = await env.gw.merchant();
      const failed = await failedExpiry(env.gw, m);
      const viewer = await teammate(env.gw, m, 'viewer');
      const page = await developersPage(viewer.email);
      await page.getByRole('cell', { name: 'could not extend file: No space left on device' }).waitFor();
      expect(await page.getByRole('button', { name: `Retry job ${failed.jobId}` }).count()).toBe(0);
      await page.context().close();
    },
    SLOW,
  );
});
