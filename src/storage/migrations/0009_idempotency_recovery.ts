import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Every running gateway process, with the time it last said it was alive. An idempotency claim
  // names its holder, so a claim whose holder stopped beating belongs to a dead process and can be
  // taken over at once, instead of after a fixed time-out.
  await db.schema
    .createTable('gateway_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('seen_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable('idempotency_keys')
    // The instance running the request; null once it let the claim go without a stored answer.
    .addColumn('holder', 'text')
    // Recovery point: the payment a submission committed before calling its processor, and the
    // card token it will show (sealed like stored responses), so a retry after a crash resumes it.
    .addColumn('recovery_payment_id', 'bigint')
    .addColumn('recovery_secret', 'text')
    .execute();
  await sql`alter table gateway_instances set (fillfactor = 50)`.execute(db);
}
