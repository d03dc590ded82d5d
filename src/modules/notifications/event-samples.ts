import type { EventCatalog, EventType } from '../events/index.js';

/**
 * A sample payload of every event type, for test events (send-test-event.ts): the shape a real event
 * of that type carries (the compiler checks each against the event catalog; a test validates each
 * against its schema), with ids 0, which no real object has, and a reference and description that say
 * it is a sample.
 */
export const EVENT_SAMPLES: { [T in EventType]: (at: Date, livemode: boolean) => EventCatalog[T] } = {
  'payment.succeeded': (at, livemode) => samplePayment(at, livemode, 'succeeded'),
  'payment.failed': (at, livemode) => ({
    ...samplePayment(at, livemode, 'failed'),
    transactionId: null,
    amountCaptured: 0,
    cardToken: null,
    declineCode: 'do_not_honor',
    declineReason: 'Do not honor',
    failure: {
      error: 'CARD_DECLINED',
      code: 'PAY001',
      message: 'The card was declined (sample)',
      details: { declineCode: 'do_not_honor' },
    },
  }),
  'payment.requires_action': (at, livemode) => ({
    ...samplePayment(at, livemode, 'requires_action'),
    amountCaptured: 0,
    challengeRequired: true,
    redirectUrl: 'https://acs.example/challenge/sample',
    cardToken: null,
    threeDs: null,
  }),
  'payment.authorized': (at, livemode) => ({
    ...samplePayment(at, livemode, 'authorized'),
    amountCaptured: 0,
    captureDelayHours: 24,
    captureAt: new Date(at.getTime() + 24 * 3600_000).toISOString(),
  }),
  'payment.canceled': (at, livemode) => ({
    ...samplePayment(at, livemode, 'canceled'),
    amountCaptured: 0,
    captureDelayHours: 24,
  }),
  'refund.succeeded': () => ({ refundId: 0, paymentId: 0, amount: 1000, currency: 'EUR', status: 'succeeded' }),
  'refund.failed': () => ({ refundId: 0, paymentId: 0, amount: 1000, currency: 'EUR', status: 'failed' }),
  'payment_request.expired': (at, livemode) => ({
    paymentRequestId: 0,
    amount: 10,
    currency: 'EUR',
    reference: 'sample-order-0',
    status: 'expired',
    amountPaid: 0,
    amountRefunded: 0,
    customerId: null,
    description: 'A sample payment request (test event)',
    metadata: {},
    createDate: new Date(at.getTime() - 3600_000).toISOString(),
    expiresAt: at.toISOString(),
    livemode,
    notifyUrl: null,
    successUrl: null,
    failureUrl: null,
    captureDelayHours: 0,
    payer: {},
    checkoutUrl: 'https://checkout.example/main?requestId=0',
  }),
  'api_key.exposed': (at, livemode) => ({ keyId: 0, mode: livemode ? 'live' : 'test', exposedAt: at.toISOString() }),
  'api.version.deprecated': (at) => ({
    feature: 'sample-feature',
    description: 'A sample deprecation notice (test event)',
    deprecatedAt: at.toISOString(),
    sunsetAt: new Date(at.getTime() + 180 * 86_400_000).toISOString(),
    migrationNote: 'Nothing to do: this is a test event.',
  }),
};

type PaymentStatus = EventCatalog['payment.succeeded']['status'];

/** A card payment of EUR 10.00 through the sandbox processor, settled into `status`. */
function samplePayment(at: Date, livemode: boolean, status: PaymentStatus): EventCatalog['payment.succeeded'] {
  return {
    paymentId: 0,
    transactionId: 'txn_sample_0',
    paymentRequestId: 0,
    status,
    challengeRequired: false,
    redirectUrl: null,
    upiIntentUrl: null,
    upiExpiresAt: null,
    amount: 10,
    currency: 'EUR',
    amountCaptured: 10,
    amountRefunded: 0,
    refundStatus: 'none',
    processor: 'acme',
    method: 'card',
    payer: { name: 'Sample Payer', email: 'payer@example.com' },
    upiId: null,
    walletType: null,
    card: { brand: 'visa', bin: '424242', last4: '4242', expiration: '12/30' },
    cardToken: 'tok_sample_0',
    captureDelayHours: 0,
    captureAt: null,
    declineCode: null,
    declineReason: null,
    failure: null,
    threeDs: { result: 'Y', eci: '05' },
    livemode,
    createDate: at.toISOString(),
  };
}
