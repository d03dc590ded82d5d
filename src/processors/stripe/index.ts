export {
  createStripeConnector,
  type StripeConnector,
  type StripeConnectorOptions,
  type StripeCredentials,
} from './connector.js';
export type { StripeReturnParams } from './challenge.js';
export { STRIPE_API_HOST } from './client.js';
export { STRIPE_DECLINE_CODES, THREE_DS_FAILED_REASON, gatewayDecline } from './decline-codes.js';
export { callbackOf, parseStripeCallback, type StripeProviderEvent } from './events.js';
export { type AttemptJournal, type AuthorizeAttempt, memoryJournal } from './journal.js';
export { StripeWebhookSignatureError, verifyStripeWebhook, type WebhookHeaders } from './webhooks.js';
