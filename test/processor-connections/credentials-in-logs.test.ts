import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger, scrub } from '../../src/http/logging.js';
import { ADYEN_TEST, SECRETS, STRIPE_LIVE, STRIPE_TEST } from './fixtures.js';

/**
 * Should a connection's credentials ever reach a log call (an error carrying the body, a message quoting a
 * key), the logger drops them: by field name structurally, and Stripe's keys by pattern anywhere in a line.
 */
function capturedLogger() {
  let text = '';
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { logger: createLogger('info', destination), text: () => text };
}

it('redacts credentials objects and each credential field wherever a log call puts them', async () => {
  const { logger, text } = capturedLogger();
  logger.info({ body: { processor: 'stripe', credentials: STRIPE_TEST } }, 'a body');
  logger.info({ changes: { ...ADYEN_TEST }, stripe: { ...STRIPE_LIVE } }, 'loose fields');
  logger.flush();
  await new Promise((resolve) => setImmediate(resolve));
  expect(text()).toContain('"credentials":"[REDACTED]"');
  for (const secret of SECRETS) expect(text()).not.toContain(secret);
  expect(text()).toContain(ADYEN_TEST.merchantAccount);
});

it('scrubs Stripe secret, restricted and webhook keys from any line by pattern', () => {
  expect(scrub(`failed with ${STRIPE_LIVE.secretKey} at Stripe`)).toBe('failed with sk_live_[REDACTED] at Stripe');
  expect(scrub('rk_test_51Restricted')).toBe('rk_test_[REDACTED]');
  expect(scrub(`"${STRIPE_TEST.webhookSecret}"`)).toBe('"whsec_[REDACTED]"');
  // Identifiers that only contain the letters stay.
  expect(scrub('task_live_update')).toBe('task_live_update');
});
