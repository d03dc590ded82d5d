/**
 * The event types a merchant may choose to receive (settings.eventTypes; GET /settings lists them as
 * availableEventTypes, which the control panel offers). event-types.ts checks it against the event
 * catalog.
 */
export const EVENT_TYPE_LIST = [
  'payment.succeeded',
  'payment.failed',
  'payment.requires_action',
  'payment.authorized',
  'payment.canceled',
  'refund.succeeded',
  'refund.failed',
  'payment_request.expired',
  'api_key.exposed',
  'api.version.deprecated',
] as const;
