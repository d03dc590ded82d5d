/** The payment requests module: what a payer pays, its lifecycle and expiry. */
export { paymentRequestRoutes as routes } from './routes.js';
export { paymentRequestJobs as jobs } from './expire-payment-request.js';
export type { PaymentRequestEventType } from './events.js';

// What other modules may call.
export { getPaymentRequest } from './get-payment-request.js';
export { recordRefundOnRequest } from './record-refund.js';
export { findPaymentRequest } from './repository.js';
export { assertOpen } from './status.js';
export { checkoutPageUrl } from './present.js';
export type { PaymentRequestStatus, PaymentRequestsTable } from './tables.js';
export type { PaymentRequestsContext } from './context.js';
