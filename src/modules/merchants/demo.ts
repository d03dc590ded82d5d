import { randomBase62 } from '../../lib/crypto.js';
import { type DbContext, inTransaction } from '../../storage/db-context.js';
import { rotateApiKey } from '../api-keys/index.js';
import { createMerchant } from './create-merchant.js';
import { countMerchants } from './repository.js';

export interface DemoCredentials {
  email: string;
  password: string;
  userId: number;
  merchantId: number;
  apiKey: string;
}

/** Development only: on an empty store, a merchant a newcomer can use within a minute. */
export async function seedDemoMerchant(ctx: DbContext): Promise<DemoCredentials | undefined> {
  return inTransaction(ctx, async (trx) => {
    if ((await countMerchants(trx.db)) > 0) return undefined;
    const password = randomBase62(16);
    const email = 'demo@example.com';
    const created = await createMerchant(trx, { email, password, name: 'Demo Merchant' });
    const apiKey = await rotateApiKey(trx, { userId: created.userId, mode: 'test' });
    return { email, password, userId: created.userId, merchantId: created.merchantId, apiKey };
  });
}
