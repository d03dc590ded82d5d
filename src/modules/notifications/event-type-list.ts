/**
 * The event types a merchant may choose to receive (settings.eventTypes), as plain data: the control
 * panel's build imports this file too, so it must import nothing. event-types.ts checks it against the
 * event catalog.
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
