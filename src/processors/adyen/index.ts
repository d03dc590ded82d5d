export { createAdyenConnector } from './connector.js';
export { ADYEN_WEBHOOK_ANSWER, verifyAdyenWebhook } from './webhook.js';
export { DECLINE_REASONS, DEFAULT_DECLINE_CODE, type DeclineCode } from './refusals.js';
export type {
  AdyenConnectorOptions,
  AdyenCredentials,
  AdyenModification,
  AdyenProcessor,
  AdyenProviderEvent,
  AdyenReceipt,
  AdyenReturnParams,
} from './types.js';
