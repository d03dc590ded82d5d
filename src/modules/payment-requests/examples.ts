import type { Static } from '@sinclair/typebox';
import type { CreatePaymentRequestBody, PaymentRequestRecord } from './schemas.js';

/** The examples /openapi.json shows for creating a payment request. */

export const CREATE_PAYMENT_REQUEST_EXAMPLE: Static<typeof CreatePaymentRequestBody> = {
  amount: 19.99,
  currency: 'EUR',
  reference: 'order-1042',
  description: 'Two notebooks',
  metadata: { cart: 'c_77' },
};

export const PAYMENT_REQUEST_EXAMPLE: Static<typeof PaymentRequestRecord> = {
  paymentRequestId: 42,
  amount: 19.99,
  currency: 'EUR',
  reference: 'order-1042',
  status: 'open',
  amountPaid: 0,
  amountRefunded: 0,
  customerId: null,
  description: 'Two notebooks',
  metadata: { cart: 'c_77' },
  createDate: '2026-03-01T12:00:00.000Z',
  expiresAt: null,
  livemode: false,
  notifyUrl: null,
  successUrl: null,
  failureUrl: null,
  captureDelayHours: 0,
  payer: {},
  checkoutUrl: 'https://gateway.example/checkout/42',
};
