/**
 * Idempotency keys. Each Stripe call kind gets its own key derived from the gateway's reference,
 * so a retried call replays the first answer instead of acting twice, and the calls of one payment
 * never collide with each other (Stripe refuses a key reused with other parameters).
 */
export const keys = {
  paymentMethod: (reference: string) => `${reference}:pm`,
  paymentIntent: (reference: string) => `${reference}:pi`,
  confirm: (reference: string) => `${reference}:confirm`,
  /** A PaymentIntent left unconfirmed, cancelled so that a late confirmation cannot charge it. */
  abandon: (paymentIntentId: string) => `${paymentIntentId}:abandon`,
  capture: (paymentIntentId: string, amount: number) => `${paymentIntentId}:capture:${amount}`,
  void: (paymentIntentId: string) => `${paymentIntentId}:void`,
  refund: (refundReference: string) => `${refundReference}:refund`,
};
