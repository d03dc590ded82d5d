import { sql } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { CustomersTable } from './tables.js';
import { fromMinor } from '../../lib/money.js';
import { sumMajorUnits } from './major-units.js';
import type { Customer } from './schemas.js';

/** A merchant and mode: every customer query is confined to one. */
export interface CustomerScope {
  merchantId: number;
  livemode: boolean;
}

export type CustomerChanges = Partial<
  Pick<CustomersTable, 'name' | 'email' | 'address' | 'phone' | 'member_id' | 'country'>
>;

export async function insertCustomer(
  db: Db,
  values: CustomerScope & { userId: number; now: Date } & Required<CustomerChanges>,
): Promise<number> {
  const row = await db
    .insertInto('customers')
    .values({
      merchant_id: values.merchantId,
      livemode: values.livemode,
      user_id: values.userId,
      name: values.name,
      email: values.email,
      address: values.address,
      phone: values.phone,
      member_id: values.member_id,
      country: values.country,
      created_at: values.now,
      updated_at: values.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Returns false when no customer of the scope has this id. */
export async function updateCustomerRow(
  db: Db,
  scope: CustomerScope,
  id: number,
  changes: CustomerChanges,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('customers')
    .set({ ...changes, updated_at: now })
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** memberId is unique per merchant and mode (partial unique index customers_member_id). */
export function isMemberIdTaken(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string };
  return e.code === '23505' && (e.constraint === undefined || e.constraint === 'customers_member_id');
}

/**
 * Customers with their owner's name and their payment-request totals, computed in the same
 * query from payment_requests: never stored, so they cannot drift from the requests.
 * `deposits` is null when the customer has no payment request, else net paid minor units per currency.
 */
function selectCustomers(db: Db, scope: CustomerScope) {
  return db
    .selectFrom('customers as c')
    .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom(
            eb
              .selectFrom('payment_requests as pr')
              .select(['pr.currency', sql<number>`sum(pr.amount_paid - pr.amount_refunded)`.as('net')])
              .whereRef('pr.merchant_id', '=', 'c.merchant_id')
              .whereRef('pr.customer_id', '=', 'c.id')
              .whereRef('pr.livemode', '=', 'c.livemode')
              .groupBy('pr.currency')
              .as('per_currency'),
          )
          .select(
            sql<Record<string, number> | null>`jsonb_object_agg(per_currency.currency, per_currency.net)`.as(
              'deposits',
            ),
          )
          .as('totals'),
      (join) => join.onTrue(),
    )
    .select([
      'c.id',
      'c.merchant_id',
      'c.user_id',
      'c.name',
      'c.email',
      'c.address',
      'c.phone',
      'c.member_id',
      'c.country',
      'c.created_at',
      'm.name as owner_name',
      'totals.deposits',
    ])
    .where('c.merchant_id', '=', scope.merchantId)
    .where('c.livemode', '=', scope.livemode);
}

type CustomerRow = Awaited<ReturnType<ReturnType<typeof selectCustomers>['executeTakeFirstOrThrow']>>;

function toCustomer(row: CustomerRow): Customer {
  const deposits = row.deposits ?? {};
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    ownerId: row.merchant_id,
    userId: row.user_id,
    ownerName: row.owner_name,
    address: row.address,
    phone: row.phone,
    memberId: row.member_id,
    country: row.country,
    hasPaymentRequests: row.deposits !== null,
    totalDeposits: sumMajorUnits(deposits),
    depositsByCurrency: Object.fromEntries(
      Object.entries(deposits).map(([currency, minor]) => [currency, fromMinor(Number(minor), currency)]),
    ),
    createDate: new Date(row.created_at).toISOString(),
  };
}

export async function findCustomer(db: Db, scope: CustomerScope, id: number): Promise<Customer | undefined> {
  const row = await selectCustomers(db, scope).where('c.id', '=', id).executeTakeFirst();
  return row && toCustomer(row);
}

export interface CustomerFilter {
  email?: string;
  memberId?: string;
  /** Keyset pagination, newest first: only ids below this one. */
  beforeId?: number;
  limit: number;
}

export async function findCustomers(db: Db, scope: CustomerScope, filter: CustomerFilter): Promise<Customer[]> {
  let query = selectCustomers(db, scope);
  if (filter.email !== undefined) query = query.where('c.email', '=', filter.email);
  if (filter.memberId !== undefined) query = query.where('c.member_id', '=', filter.memberId);
  if (filter.beforeId !== undefined) query = query.where('c.id', '<', filter.beforeId);
  const rows = await query.orderBy('c.id', 'desc').limit(filter.limit).execute();
  return rows.map(toCustomer);
}

/**
 * A customer's payment requests counted and summed per currency and status (payment requests are
 * read here, never written). An open request past its expiresAt counts as expired, as the API shows it.
 */
export async function customerRequestTotals(db: Db, scope: CustomerScope, customerId: number, now: Date) {
  const status = sql<string>`case when status = 'open' and expires_at <= ${now} then 'expired' else status end`;
  return (
    db
      .selectFrom('payment_requests')
      .select([
        'currency',
        status.as('status'),
        sql<string>`count(*)`.as('count'),
        sql<string>`sum(amount)`.as('amount'),
        sql<string>`sum(amount_paid)`.as('paid'),
        sql<string>`sum(amount_refunded)`.as('refunded'),
      ])
      .where('merchant_id', '=', scope.merchantId)
      .where('livemode', '=', scope.livemode)
      .where('customer_id', '=', customerId)
      // By position: the status expression carries a parameter, and a repeated one would be another parameter.
      .groupBy(sql`1, 2`)
      .orderBy('currency')
      .execute()
  );
}
