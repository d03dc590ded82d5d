import { sql } from 'kysely';
import { insertDeliveries } from '../../src/modules/notifications/repository.js';
import type { Db } from '../../src/storage/db.js';

export interface PendingDelivery {
  merchantId: number;
  url: string;
  /** The delivery's payment: one key's deliveries leave in order. */
  orderKey: string;
  due: Date;
  /** Attempts already made (a retry backing off has at least one). */
  attempts?: number;
}

/**
 * One delivery of an event of its own, made as the relay makes it (insertDeliveries), due at `due`. The
 * event is not queued for the relay, so the relay makes no other delivery of it. Returns the delivery's id.
 */
export async function pendingDelivery(db: Db, delivery: PendingDelivery): Promise<number> {
  const [event] = (
    await sql<{ id: number }>`insert into outbox_events (merchant_id, livemode, type, object_id, payload, created_at)
      values (${delivery.merchantId}, false, 'payment.succeeded', 1, '{}', ${delivery.due}) returning id`.execute(db)
  ).rows;
  const { merchantId, url, orderKey } = delivery;
  await insertDeliveries(db, [{ merchantId, livemode: false, eventId: event.id, url, orderKey }], delivery.due);
  const [made] = (
    await sql<{ id: number }>`update webhook_deliveries set attempts = ${delivery.attempts ?? 0}
      where event_id = ${event.id} returning id`.execute(db)
  ).rows;
  return made.id;
}
