import { randomInt } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:tls';
import { getHeapSnapshot } from 'node:v8';
import { type AdyenProcessor, createAdyenConnector } from '../../src/processors/adyen/index.js';
import type { AuthorizeInput } from '../../src/processors/types.js';
import { selfSignedCertificate } from '../helpers/tls.js';

// Run by adyen-card-data.test.ts in a process of its own, so that the heap searched holds the connector,
// the SDK and this script, not a test worker's every earlier file (a snapshot of that took longer than a
// test may). Prints one JSON line: what the calls answered and which numbers the heap holds.
//
// Card data is never kept: after an authorization that got no answer, the card number is nowhere in
// this process's JavaScript heap. The search runs over a heap snapshot (V8 collects garbage before
// taking one), so it sees whatever the connector, the SDK or anything they hand it still reaches,
// closures included. The card numbers are random and this script holds them only as byte buffers
// (whose contents a snapshot does not show), so a number found is one somebody kept as a string.
// The CVV is too short to search for; it travels only inside the same request as the number.

let tls: ReturnType<typeof selfSignedCertificate>;
/** An endpoint that takes the request and never answers: the authorization times out, outcome unknown. */
let silent: Server;
/** Each connection's end, as the silent endpoint sees it. */
const hungUp: Promise<void>[] = [];
let adyen: AdyenProcessor;

async function setUp(): Promise<void> {
  tls = selfSignedCertificate();
  silent = createServer({ key: readFileSync(tls.keyFile), cert: readFileSync(tls.certFile) }, (socket) => {
    // Read and dropped as bytes, never as strings; never answered.
    socket.resume();
    hungUp.push(new Promise((resolve) => socket.once('close', () => resolve())));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  adyen = createAdyenConnector({
    credentials: { apiKey: 'AQE_test_key', merchantAccount: 'GatewayMerchantECOM' },
    apiBase: `https://127.0.0.1:${port}`,
    timeoutMs: 1000,
    unverifiedTls: true,
  });
}

async function tearDown(): Promise<void> {
  await adyen?.close();
  await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
}

/** A random 16-digit Visa-like number, held as ASCII bytes: strings made of it are garbage unless kept. */
const randomPan = () => Buffer.from(`4${Array.from({ length: 15 }, () => randomInt(10)).join('')}`, 'latin1');

/** The authorization's input is built and dropped here: afterwards only the connector could keep it. */
const authorizeWith = (adyen: AdyenProcessor, pan: Buffer, reference: string) => {
  const input: AuthorizeInput = {
    reference,
    amount: 1000,
    currency: 'EUR',
    capture: true,
    card: { number: pan.toString('latin1'), expMonth: 3, expYear: 2030, cvv: '737', holder: 'Jane Shopper' },
    threeDS: { force: false, returnUrl: 'https://gateway.example/payments/return' },
  };
  return adyen.authorize(input);
};

/**
 * Which of the byte strings some string in the heap contains, from one snapshot. A snapshot cuts each
 * string to its first 1024 characters (V8's --heap-snapshot-string-limit); a card number is its own
 * string of 16-19, and in a serialised request it comes within the first few hundred.
 */
async function foundInHeap(needles: Buffer[]): Promise<boolean[]> {
  const found = needles.map(() => false);
  const longest = Math.max(...needles.map((needle) => needle.length));
  let tail = Buffer.alloc(0);
  for await (const chunk of getHeapSnapshot() as AsyncIterable<Buffer | string>) {
    const window = Buffer.concat([tail, Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)]);
    needles.forEach((needle, i) => (found[i] ||= window.includes(needle)));
    tail = window.subarray(Math.max(0, window.length - longest + 1));
  }
  return found;
}

async function scenario() {
  const pan = randomPan();
  const reference = `pay_${randomInt(1e9)}`;
  const outcome = await authorizeWith(adyen, pan, reference);
  const status = await adyen.queryStatus(reference);
  // The SDK's aborted request (its listeners close over the body) lives until its socket has
  // closed: the end of the call, not something kept. Then the next turn of the event loop.
  await Promise.all(hungUp);
  await new Promise((resolve) => setImmediate(resolve));
  // The control: a number this script does hold as a string is found, so the search can find one.
  const control = { number: randomPan().toString('latin1') };
  const [controlFound, panFound] = await foundInHeap([Buffer.from(control.number, 'latin1'), pan]);
  return { outcome, status, reference, controlFound, panFound, controlLength: control.number.length };
}

await setUp();
try {
  console.log(JSON.stringify(await scenario()));
} finally {
  await tearDown();
}
