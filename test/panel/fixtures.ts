import { hashPassword } from '../../src/modules/merchants/passwords.js';
import type { UserRole } from '../../src/modules/merchants/index.js';
import { PASSWORD, type TestGateway, type TestMerchant } from '../helpers/gateway.js';

let made = 0;

/** Another user of the merchant, with a role, password PASSWORD: written directly (test/team covers the invitation). */
export async function teammate(gw: TestGateway, m: Pick<TestMerchant, 'merchantId'>, role: UserRole) {
  const email = `${role}-${m.merchantId}-${Date.now()}-${++made}@example.com`;
  const user = await gw.db
    .insertInto('users')
    .values({ merchant_id: m.merchantId, email, password_hash: await hashPassword(PASSWORD), role })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { userId: user.id, email };
}
