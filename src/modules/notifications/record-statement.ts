import { sql } from 'kysely';
import type { Db } from '../../storage/db.js';
import { hotStatement, type Grouped } from '../../storage/hot-statement.js';

/**
 * The record of a delivery attempt (part of the notifications repository, which re-exports it): the
 * attempt's log line and the delivery's new state, one statement written once, run alone or grouped with
 * the records of concurrent sends (src/storage/hot-statement.ts): a busy endpoint's sends end many at a time.
 */

export interface AttemptRecord {
  deliveryId: number;
  eventId: number;
  at: Date;
  url: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** A delivery's state after an attempt: final (succeeded/failed), or pending again at `nextAttemptAt`. */
export type DeliveryOutcome = { status: 'succeeded' | 'failed'; at: Date } | { status: 'pending'; nextAttemptAt: Date };

/**
 * Logs an attempt and settles its delivery, in one statement (so atomically, and one round trip per
 * send): a pending outcome keeps the delivery pending with its next attempt, a final one sets its
 * status and time; either way it is no longer locked.
 */
export async function recordAttempt(db: Db, attempt: AttemptRecord, outcome: DeliveryOutcome): Promise<void> {
  await recordStatement.run(db, {
    ...attempt,
    finalStatus: outcome.status === 'pending' ? null : outcome.status,
    completedAt: outcome.status === 'pending' ? null : outcome.at,
    nextAttemptAt: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
  });
}

const recordStatement = hotStatement<Record<string, never>>({
  key: 'record_attempt',
  build: (db, { cte, value }) =>
    sql<Grouped<Record<string, never>>>`
    with ${cte},
    attempt as (
      insert into webhook_attempts (delivery_id, event_id, at, url, status_code, duration_ms, error)
      select ${sql.join([
        value('deliveryId', 'bigint'),
        value('eventId', 'bigint'),
        value('at', 'timestamptz'),
        value('url', 'text'),
        value('statusCode', 'int'),
        value('durationMs', 'int'),
        value('error', 'text'),
      ])}
      from calls
    )
    update webhook_deliveries d
    set status = coalesce(${value('finalStatus', 'text')}, d.status),
        completed_at = coalesce(${value('completedAt', 'timestamptz')}, d.completed_at),
        next_attempt_at = coalesce(${value('nextAttemptAt', 'timestamptz')}, d.next_attempt_at),
        locked_until = null
    from calls
    where d.id = ${value('deliveryId', 'bigint')}
    returning calls.index as group_index`.compile(db),
});
