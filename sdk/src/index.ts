/** @svc-gateway/sdk: the SVC payment gateway's API for a merchant's server (docs: sdk/README.md). */
export * from './gateway.js';
export * from './errors.js';
export { DEFAULT_RETRY_POLICY, IDEMPOTENCY_HEADER, type RetryPolicy } from './retrying-fetch.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
export type { components, operations, paths } from './generated/openapi.js';
