/** Credentials of every processor kind, each secret distinct so a test can look for it anywhere. */
export const STRIPE_TEST = {
  secretKey: 'sk_test_51StripeSecretNeverShown',
  webhookSecret: 'whsec_StripeSigningSecretNeverShown',
};
export const STRIPE_LIVE = {
  secretKey: 'sk_live_51StripeLiveSecretNeverShown',
  webhookSecret: 'whsec_StripeLiveSigningNeverShown',
};
export const ADYEN_TEST = {
  apiKey: 'AQE-adyen-api-key-never-shown',
  merchantAccount: 'AcmeShopECOM',
  hmacKey: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
  environment: 'test',
};
export const ADYEN_LIVE = { ...ADYEN_TEST, apiKey: 'AQE-adyen-live-key-never-shown', environment: 'live' };

/** Every secret above: none may appear in an answer, a log line or the table. */
export const SECRETS = [
  STRIPE_TEST.secretKey,
  STRIPE_TEST.webhookSecret,
  STRIPE_LIVE.secretKey,
  STRIPE_LIVE.webhookSecret,
  ADYEN_TEST.apiKey,
  ADYEN_TEST.hmacKey,
  ADYEN_LIVE.apiKey,
];

export const stripeBody = (credentials = STRIPE_TEST) => ({
  processor: 'stripe',
  name: 'Stripe main',
  credentials,
  slots: ['acme', 'h2h'],
  priority: 10,
});
export const adyenBody = (credentials: Record<string, string> = ADYEN_TEST) => ({
  processor: 'adyen',
  credentials,
  slots: ['globex'],
});
export const sandboxBody = () => ({ processor: 'sandbox', credentials: {}, slots: ['acme'], priority: -1 });
