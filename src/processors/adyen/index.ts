export { createAdyenConnector } from './connector.js';
export { ADYEN_WEBHOOK_ANSWER, verifyAdyenCallbacks, verifyAdyenWebhook } from './webhook.js';
export type {
  AdyenConnectorOptions,
  AdyenCredentials,
  AdyenModification,
  AdyenProcessor,
  AdyenProviderEvent,
  AdyenReceipt,
  AdyenReturnParams,
} from './types.js';
