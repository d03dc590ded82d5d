import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('customers')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('phone', 'text')
    .addColumn('member_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index customers_member_id on customers (merchant_id, livemode, member_id) where member_id is not null`.execute(
    db,
  );
  await sql`create index customers_list on customers (merchant_id, livemode, id desc)`.execute(db);
  await sql`create index customers_email on customers (merchant_id, livemode, email)`.execute(db);

  await db.schema
    .createTable('payment_requests')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('merchant_id', 'bigint', (c) => c.notNull())
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    // Money is integer minor units of `currency`, never a float.
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('customer_id', 'bigint')
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .check(
          sql`status in ('open','processing','authorized','paid','partially_refunded','refunded','canceled','expired')`,
        ),
    )
    .addColumn('amount_paid', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('amount_refunded', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index payment_requests_list on payment_requests (merchant_id, livemode, id desc)`.execute(db);
  await sql`create index payment_requests_reference on payment_requests (merchant_id, livemode, reference)`.execute(db);
  await sql`create index payment_requests_customer on payment_requests (merchant_id, customer_id) where customer_id is not null`.execute(
    db,
  );
}
