import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './processes.js';

/** Debian's Chromium in a container: no sandbox, no GPU, no background traffic. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Builds the front ends when stale (call it before starting a gateway: it serves what is built) and starts Chromium (installed by scripts/chromium.sh when missing). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync('bash', ['scripts/chromium.sh'], { cwd: ROOT, encoding: 'utf8' }).trim();
  execFileSync('bash', ['scripts/build-if-stale.sh'], { cwd: ROOT, stdio: 'ignore' });
  return chromium.launch({ executablePath, args: FLAGS });
}
