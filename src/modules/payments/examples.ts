import type { Static } from '@sinclair/typebox';
import type { H2hBody, Payment, Refund, RefundBody } from './schemas.js';

/** The examples /openapi.json shows for paying and refunding (a sandbox card that is approved). */

export const H2H_CARD_EXAMPLE: Static<typeof H2hBody> = {
  name: 'Asha Rao',
  email: 'asha@example.com',
  phoneNumber: '919876543210',
  address: '12 MG Road',
  city: 'Bengaluru',
  state: 'KA',
  postalCode: '560001',
  country: 'IN',
  number: '4242424242424242',
  expiration: '12/30',
  cvv: '123',
  amount: 19.99,
  unit: 'EUR',
  referenceId: 'order-1042',
};

export const PAYMENT_EXAMPLE: Static<typeof Payment> = {
  paymentId: 7,
  transactionId: 'sbx_tx_5Yq2c1',
  paymentRequestId: 42,
  status: 'succeeded',
  challengeRequired: false,
  redirectUrl: null,
  upiIntentUrl: null,
  upiExpiresAt: null,
  amount: 19.99,
  currency: 'EUR',
  amountCaptured: 19.99,
  amountRefunded: 0,
  refundStatus: 'none',
  processor: 'sandbox',
  method: 'card',
  payer: { name: 'Asha Rao', email: 'asha@example.com' },
  upiId: null,
  walletType: null,
  card: { brand: 'visa', bin: '424242', last4: '4242', expiration: '12/30' },
  cardToken: 'tok_8hX2pQ',
  captureDelayHours: 0,
  captureAt: null,
  declineCode: null,
  declineReason: null,
  failure: null,
  threeDs: null,
  livemode: false,
  createDate: '2026-03-01T12:00:00.000Z',
};

export const REFUND_BODY_EXAMPLE: Static<typeof RefundBody> = { amount: 5, reason: 'One item returned' };

export const REFUND_EXAMPLE: Static<typeof Refund> = {
  refundId: 3,
  paymentId: 7,
  amount: 5,
  currency: 'EUR',
  status: 'succeeded',
  reason: 'One item returned',
  createDate: '2026-03-01T12:05:00.000Z',
};
