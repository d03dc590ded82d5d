import type { Db } from '../../storage/db.js';
import type { MerchantStatus } from './tables.js';

export async function insertMerchant(db: Db, values: { name: string }) {
  return db.insertInto('merchants').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertUser(db: Db, values: { merchantId: number; email: string; passwordHash: string }) {
  return db
    .insertInto('users')
    .values({ merchant_id: values.merchantId, email: values.email, password_hash: values.passwordHash })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findUserByEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function merchantExists(db: Db, merchantId: number): Promise<boolean> {
  return (await db.selectFrom('merchants').select('id').where('id', '=', merchantId).executeTakeFirst()) !== undefined;
}

export async function countMerchants(db: Db): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateMerchantStatus(db: Db, merchantId: number, status: MerchantStatus) {
  return db
    .updateTable('merchants')
    .set({ status })
    .where('id', '=', merchantId)
    .returning(['id', 'status'])
    .executeTakeFirst();
}
