import type { DbContext } from '../../storage/db-context.js';
import { notFound } from '../../errors.js';
import { findPaymentRequest, type MerchantScope } from './repository.js';

/** The request, or 404 when it is missing, another merchant's or the other mode's. */
export async function getPaymentRequest(ctx: Pick<DbContext, 'db'>, input: { scope: MerchantScope; id: number }) {
  const row = await findPaymentRequest(ctx.db, input.scope, input.id);
  if (!row) throw notFound(`payment request ${input.id}`);
  return row;
}
