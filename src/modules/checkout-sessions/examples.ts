import type { Static } from '@sinclair/typebox';
import type { CheckoutSession } from './schemas.js';

/** The example /openapi.json shows for minting a checkout session (whose body is empty). */
export const CHECKOUT_SESSION_EXAMPLE: Static<typeof CheckoutSession> = {
  token: 'cs_test_3Jf8kQ2mX9',
  paymentRequestId: 42,
  expiresAt: '2026-03-01T12:15:00.000Z',
  ttlSeconds: 900,
};
