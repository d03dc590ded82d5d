import { sql, type Kysely } from 'kysely';

/**
 * The processors' own webhooks (`POST /callbacks/stripe/{connectionId}`, `/callbacks/adyen/{connectionId}`)
 * are recorded as callback events of their own sources, deduplicated with the others by event id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table callback_events drop constraint callback_events_source_check`.execute(db);
  await sql`alter table callback_events add constraint callback_events_source_check
    check (source in ('svc','svc-gateway','svcwh','3ds','stripe','adyen','test/json','test/form','test/text'))`.execute(
    db,
  );
}
