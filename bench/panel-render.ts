import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { inTransaction } from '../src/storage/db-context.js';
import { createMerchant } from '../src/modules/merchants/index.js';
import { startGateway } from '../src/server.js';

/**
 * `npm run bench:panel [-- --loads 10]`
 * The control panel's first render on localhost: starts the gateway (embedded store in memory, the
 * built front end from web/dist), signs in once with Debian's Chromium (scripts/chromium.sh), then opens
 * `/panel/#/dashboard` in a fresh page with a cold cache `--loads` times after one warm-up, and prints the
 * median and worst first contentful paint and time until the dashboard is usable (its charts drawn and
 * its range chooser on screen), both from the navigation's start. docs/performance.md records a run.
 */
const { values: args } = parseArgs({ options: { loads: { type: 'string', default: '10' } } });
const LOADS = Number(args.loads);
const EMAIL = 'bench-panel@example.com';
const PASSWORD = 'bench-password-123';

const config = loadConfig({
  NODE_ENV: 'development',
  PORT: '0',
  DATA_DIR: 'memory://',
  SEED_DEMO: 'false',
  LOG_LEVEL: 'warn',
});
const gateway = await startGateway(config, { runJobs: false });
const executablePath = execFileSync('bash', ['scripts/chromium.sh'], { encoding: 'utf8' }).trim();
const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const ctx = { db: gateway.db, clock: { now: () => new Date() } };
  await inTransaction(ctx, (trx) => createMerchant(trx, { email: EMAIL, password: PASSWORD, name: 'Bench' }));
  const origin = gateway.url.replace('127.0.0.1', 'localhost');
  const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
  const signIn = await context.newPage();
  await signIn.goto(`${origin}/panel/#/dashboard`);
  await signIn.getByLabel('Email').fill(EMAIL);
  await signIn.getByLabel('Password').fill(PASSWORD);
  await signIn.getByRole('button', { name: 'Sign in' }).click();
  await signIn.locator('.chart canvas').first().waitFor();
  await signIn.close();

  const fcp: number[] = [];
  const usable: number[] = [];
  for (let i = 0; i <= LOADS; i++) {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto(`${origin}/panel/#/dashboard`);
    await page.locator('.chart canvas').first().waitFor();
    await page.getByRole('radio', { name: 'Last 7 days' }).waitFor();
    const ready = await page.evaluate(() => performance.now());
    const paint = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
    );
    await page.close();
    if (i === 0) continue; // the warm-up
    fcp.push(paint);
    usable.push(ready);
  }
  const summary = (ms: number[]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    return `median ${Math.round(sorted[Math.floor((sorted.length - 1) / 2)])} ms, worst ${Math.round(sorted.at(-1)!)} ms`;
  };
  console.log(`Panel at ${origin}/panel/#/dashboard, signed in, ${LOADS} cold-cache loads after a warm-up:`);
  console.log(`  first contentful paint: ${summary(fcp)}`);
  console.log(`  dashboard usable (charts drawn): ${summary(usable)}`);
} finally {
  await browser.close();
  await gateway.close();
}
