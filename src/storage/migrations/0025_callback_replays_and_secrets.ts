import { sql, type Kysely } from 'kysely';

/**
 * A provider event is received once across every receiver, not once per receiver: all of them verify
 * with the same signing secret, so a body captured on one was accepted as new on another. Rows
 * received before this migration that repeated an earlier event on another receiver are marked
 * `duplicate_of` that first row (they stay, as the record of what came in) and are outside the index.
 *
 * 3-D Secure authentication values (and any CVV a test call carried) are no longer kept in clear in
 * stored bodies: new rows hold them redacted, with what processing needs sealed in `sealed_secrets`;
 * the rows already stored are redacted here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table callback_events add column duplicate_of bigint, add column sealed_secrets text`.execute(db);
  await sql`update callback_events c set duplicate_of = f.first_id
    from (select event_id, min(id) as first_id from callback_events where source not like 'test/%'
          group by event_id having count(*) > 1) f
    where c.event_id = f.event_id and c.id <> f.first_id and c.source not like 'test/%'`.execute(db);
  await sql`drop index callback_events_event`.execute(db);
  await sql`create unique index callback_events_event on callback_events (event_id)
    where source not like 'test/%' and duplicate_of is null`.execute(db);

  for (const member of ['authenticationValue', 'cavv', 'aav', 'tavv', 'cvv', 'cvc']) {
    await sql`update callback_events set payload = jsonb_set(payload, ${sql.lit(`{${member}}`)}, '"[redacted]"')
      where jsonb_typeof(payload) = 'object' and payload ? ${sql.lit(member)}`.execute(db);
  }
  await sql`update callback_events
    set raw_body = regexp_replace(raw_body,
      '("(authenticationValue|cavv|aav|tavv|cvv|cvc)"\\s*:\\s*)("(\\\\.|[^"\\\\])*"|[^,}\\s]+)', '\\1"[redacted]"', 'gi')
    where raw_body ~* '"(authenticationValue|cavv|aav|tavv|cvv|cvc)"'`.execute(db);
}
