import { sql, type CompiledQuery } from 'kysely';
import type { Db } from '../../storage/db.js';
import { groupsCommits, hotGroup } from '../../storage/group-commit.js';
import { statementTemplate } from '../../storage/statement-template.js';
import { runGrouped, unnestRows, type Grouped, type UnnestColumns } from '../../storage/statements.js';

/**
 * The record of a delivery attempt (part of the notifications repository, which re-exports it): the
 * attempt's log line and the delivery's new state, one statement alone or grouped with the records of
 * concurrent sends (src/storage/group-commit.ts): a busy endpoint's sends end many at a time.
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

interface Recorded {
  attempt: AttemptRecord;
  outcome: DeliveryOutcome;
}

/** Logs an attempt and settles its delivery, in one statement (so atomically, and one round trip per send). */
export async function recordAttempt(db: Db, attempt: AttemptRecord, outcome: DeliveryOutcome): Promise<void> {
  if (groupsCommits(db)) await recordGroup(db).run({ attempt, outcome });
  else await recordOne(db, { attempt, outcome });
}

async function recordOne(db: Db, { attempt, outcome }: Recorded): Promise<void> {
  await db
    .with('attempt', (qb) =>
      qb.insertInto('webhook_attempts').values({
        delivery_id: attempt.deliveryId,
        event_id: attempt.eventId,
        at: attempt.at,
        url: attempt.url,
        status_code: attempt.statusCode,
        duration_ms: attempt.durationMs,
        error: attempt.error,
      }),
    )
    .updateTable('webhook_deliveries')
    .set(
      outcome.status === 'pending'
        ? { next_attempt_at: outcome.nextAttemptAt, locked_until: null }
        : { status: outcome.status, completed_at: outcome.at, locked_until: null },
    )
    .where('id', '=', attempt.deliveryId)
    .execute();
}

const RECORD_COLUMNS: UnnestColumns = [
  ['deliveryId', 'bigint'],
  ['eventId', 'bigint'],
  ['at', 'timestamptz'],
  ['url', 'text'],
  ['statusCode', 'int'],
  ['durationMs', 'int'],
  ['error', 'text'],
  ['status', 'text'],
  ['completedAt', 'timestamptz'],
  ['nextAttemptAt', 'timestamptz'],
];

/** Concurrent records on a store that groups commits: one statement, each row as `recordOne` would write it. */
function recordGroup(db: Db) {
  return hotGroup<Recorded, Record<string, never>>(db, 'record_attempt', () => {
    const template = statementTemplate((value) => groupedRecordStatement(db, value));
    return {
      one: async (recorded) => {
        await recordOne(db, recorded);
        return {};
      },
      many: (group) => runGrouped(db, template, group.map(recordValues), RECORD_COLUMNS),
    };
  });
}

function recordValues({ attempt, outcome }: Recorded): Record<string, unknown> {
  return {
    ...attempt,
    status: outcome.status,
    completedAt: outcome.status === 'pending' ? null : outcome.at,
    nextAttemptAt: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
  };
}

/** A pending outcome keeps the delivery pending with its next attempt; a final one sets its status and time. */
function groupedRecordStatement(db: Db, value: <T>(name: string) => T): CompiledQuery<Grouped<Record<string, never>>> {
  return sql<Grouped<Record<string, never>>>`
    with records as ${unnestRows(RECORD_COLUMNS, value)},
    attempt as (
      insert into webhook_attempts (delivery_id, event_id, at, url, status_code, duration_ms, error)
      select "deliveryId", "eventId", at, url, "statusCode", "durationMs", error from records
    )
    update webhook_deliveries d
    set status = records.status, completed_at = records."completedAt",
        next_attempt_at = coalesce(records."nextAttemptAt", d.next_attempt_at), locked_until = null
    from records
    where d.id = records."deliveryId"
    returning records.index as group_index`.compile(db);
}
