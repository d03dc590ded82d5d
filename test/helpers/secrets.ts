/** Every secret NODE_ENV=production requires, for tests that start a production gateway. */
export const PRODUCTION_SECRETS = {
  JWT_SECRET: 'j'.repeat(40),
  CALLBACK_SIGNING_SECRET: 'c'.repeat(40),
  CARD_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  CARD_FINGERPRINT_SECRET: 'f'.repeat(32),
  IDEMPOTENCY_FINGERPRINT_SECRET: 'i'.repeat(32),
};
