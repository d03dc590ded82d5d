import { Type } from '@sinclair/typebox';
import { Id } from '../../lib/schema.js';

export const CheckoutSessionParams = Type.Object({
  paymentRequestId: Id('The payment request the token will be bound to'),
});

/** The spec's body is an empty JSON object; a missing body is read as one. */
export const MintCheckoutSessionBody = Type.Object({});

export const CheckoutSession = Type.Object(
  {
    token: Type.String({
      description: 'Opaque token for X-Checkout-Token or the checkout page `token` parameter; shown only this once',
    }),
    paymentRequestId: Type.Integer(),
    expiresAt: Type.String({ format: 'date-time' }),
    ttlSeconds: Type.Integer({ description: 'Always 900' }),
  },
  { title: 'CheckoutSession' },
);
