/** The event types a merchant may choose (src/modules/notifications/event-types.ts; test/panel keeps them equal). */
export const EVENT_TYPES = [
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
];
