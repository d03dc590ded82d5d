import type { EventType } from '../events/index.js';

/** Every event type a merchant may choose to receive (settings.eventTypes); the compiler keeps it complete. */
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
] as const satisfies readonly EventType[];

// Fails to compile when the event catalog gains a type this list does not name.
const complete: Exclude<EventType, (typeof EVENT_TYPES)[number]> extends never ? true : never = true;
void complete;
