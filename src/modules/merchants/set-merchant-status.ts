import { AppError, notFound } from '../../errors.js';
import type { Db } from '../../storage/db.js';
import type { MerchantStatus } from './tables.js';
import { updateMerchantStatus } from './repository.js';
import { awaitKeyCacheAcknowledgements } from '../api-keys/index.js';

export const MERCHANT_STATUSES: readonly MerchantStatus[] = ['active', 'restricted', 'suspended'];

/**
 * An operator's decision about a merchant account (decisions.md, Credentials): `suspended` refuses
 * every API-key call, `restricted` refuses payment submissions and leaves reads. In effect on every
 * instance when this returns (the key caches have dropped the merchant); not for use inside a transaction.
 */
export async function setMerchantStatus(
  ctx: { db: Db },
  input: { merchantId: number; status: string },
): Promise<{ merchantId: number; status: MerchantStatus }> {
  const status = MERCHANT_STATUSES.find((s) => s === input.status);
  if (!status) {
    throw new AppError('INVALID_FORMAT', `status must be one of ${MERCHANT_STATUSES.join(', ')}`, {
      details: { field: 'status', value: input.status },
    });
  }
  const updated = await updateMerchantStatus(ctx.db, input.merchantId, status);
  if (!updated) throw notFound(`merchant ${input.merchantId}`);
  await awaitKeyCacheAcknowledgements(ctx);
  return { merchantId: updated.id, status: updated.status };
}
