/**
 * The payments module: card and stored-card payments, their follow-ups (capture, void, refund),
 * the reconciliation sweep and the settlement of provider callbacks.
 */

export { paymentRoutes as routes } from './routes.js';
export { paymentJobs as jobs, paymentSweeps as sweeps } from './jobs.js';
export { paymentCallbackHandlers as callbackHandlers } from './on-callback.js';
export type { PaymentEventType, RefundEvent } from './events.js';
export { watchStatusChanges, type PaymentStatusChange } from './status-changes.js';
export type { PaymentStatus, RefundStatus, CardsTable, ThreeDsRecord, PaymentsTable, RefundsTable } from './tables.js';
export type { PaymentsContext } from './context.js';
