/**
 * The README's shell examples run as pasted: the blocks of "Try it" and of "Hosted checkout: integration
 * guide", in order, as one bash script, against the gateway `npm start` runs (scripts/gateway.sh on a
 * fresh store, with its demo merchant). The test fills in only what a reader copies from the banner (the
 * address, the password, the API key). Every curl call must answer 2xx, unless the README's comment right
 * after it opens with the error status it shows ("# 400 {…}").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/browser.js';
import { buildOnce, ROOT, startGatewayProcess, type GatewayProcess } from '../helpers/processes.js';

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const STATUS_MARK = 'README-CURL-STATUS';

let gateway: GatewayProcess;
let dataDir: string;

beforeAll(async () => {
  buildOnce();
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-gateway-readme-'));
  // As `npm start` runs: the embedded PostgreSQL server on DATA_DIR. A real port: the links the
  // gateway answers with (the UPI payer page) name it.
  gateway = await startGatewayProcess({ NODE_ENV: 'development', PORT: String(await freePort()), DATA_DIR: dataDir });
}, 180_000);

afterAll(async () => {
  if (gateway?.child.exitCode === null) {
    // SIGTERM: the gateway stops its embedded server before it exits.
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A `## ` section of the README, up to the next one. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start, `README section "${title}"`).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

/** Its ```sh blocks, their indentation removed (the guide's sit inside list items). */
function shellBlocks(text: string): string[] {
  return [...text.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    body
      .split('\n')
      .map((line) => line.slice(indent.length))
      .join('\n'),
  );
}

/**
 * The status each curl call of the script must answer, in the order they run: the three digits that open
 * the first comment after the call (before any other call), else any 2xx.
 */
function expectedStatuses(script: string): string[] {
  const lines = script.split('\n');
  const isComment = (line: string) => line.trimStart().startsWith('#');
  const calls = (line: string) => (isComment(line) ? 0 : (line.match(/\bcurl\s/g) ?? []).length);
  const expected: string[] = [];
  lines.forEach((line, i) => {
    for (let n = 0; n < calls(line); n++) {
      let status = '2xx';
      for (const next of lines.slice(i + 1)) {
        if (calls(next) > 0) break;
        if (isComment(next)) {
          status = /^\s*#\s*(\d{3})\s/.exec(next)?.[1] ?? '2xx';
          break;
        }
      }
      expected.push(status);
    }
  });
  return expected;
}

/** `value` must be in `script` exactly once, as a reader would find it to replace. */
function fillIn(script: string, value: string, replacement: string): string {
  expect(script.split(value).length - 1, `"${value}" in the README's blocks`).toBe(1);
  return script.replace(value, () => replacement);
}

function runBash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd: tmpdir(),
      env: { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the README', () => {
  it('quotes the banner: the same host in its address, its "Try:" line and its GATEWAY', () => {
    const { url, demo } = gateway.banner;
    const port = new URL(url).port;
    const tryLine = /^ {2}Try: .*$/m.exec(gateway.stderr())![0];
    // The README's copy, with its placeholder key and the default port.
    expect(README).toContain(tryLine.replace(demo!.apiKey, 'svc_test_sk_…').replace(`:${port}/`, ':8080/'));
    const listening = /^svc-gateway development listening on \S+/m.exec(gateway.stderr())![0];
    expect(README).toContain(listening.replace(`:${port}`, ':8080'));
    const readmeGateway = /^GATEWAY=(\S+)/m.exec(section('Try it (against `npm start`)'))![1];
    expect(new URL(readmeGateway).hostname).toBe(new URL(url).hostname);
  });

  it('"Try it" and the integration guide run as pasted, each call answering what the README says', async () => {
    const blocks = [
      ...shellBlocks(section('Try it (against `npm start`)')),
      ...shellBlocks(section('Hosted checkout: integration guide')),
    ];
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const { url, demo } = gateway.banner;
    let script = blocks.join('\n');
    script = script.replace(/^GATEWAY=\S+/m, `GATEWAY=${url}`);
    script = fillIn(script, '<the password from the banner>', demo!.password);
    script = fillIn(script, '<the API key from the banner>', demo!.apiKey);
    const expected = expectedStatuses(script);
    expect(expected.length).toBeGreaterThanOrEqual(15);

    // Each call's status goes to stderr (never into the answer a block pipes on); any failing command stops the script.
    const wrapper = `set -euo pipefail\ncurl() { command curl -w '%{stderr}${STATUS_MARK} %{http_code} %{url_effective}\\n' "$@"; }\n`;
    const result = await runBash(wrapper + script);
    const report = `exit ${result.code}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
    const answered = result.stderr
      .split('\n')
      .filter((line) => line.startsWith(STATUS_MARK))
      .map((line) => line.split(' ').slice(1));
    expect(result.code, report).toBe(0);
    expect(answered.length, report).toBe(expected.length);
    answered.forEach(([status, callUrl], i) => {
      if (expected[i] === '2xx') expect(status, `${callUrl}\n${report}`).toMatch(/^2\d\d$/);
      else expect(status, `${callUrl}\n${report}`).toBe(expected[i]);
    });
    // The guide's mint, as pasted: a token, though the command names no content type.
    expect(result.stdout).toMatch(/"token":"cst_[0-9A-Za-z]{32}"/);
  }, 120_000);
});
