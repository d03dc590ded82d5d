import type { Db } from '../storage/db.js';

export type EventType =
  | 'payment.succeeded'
  | 'payment.failed'
  | 'payment.requires_action'
  | 'payment.authorized'
  | 'payment.canceled'
  | 'refund.succeeded'
  | 'refund.failed'
  | 'payment_request.expired';

/**
 * Transactional outbox: written in the same transaction as the state change it announces,
 * so a notification exists exactly when the change committed. Delivery is a separate worker.
 */
export async function recordEvent(
  trx: Db,
  event: { merchantId: number; livemode: boolean; type: EventType; objectId: number; object: Record<string, unknown>; now: Date },
): Promise<void> {
  await trx
    .insertInto('outbox_events')
    .values({
      merchant_id: event.merchantId,
      livemode: event.livemode,
      type: event.type,
      object_id: event.objectId,
      payload: JSON.stringify(event.object),
      created_at: event.now,
    })
    .execute();
}
