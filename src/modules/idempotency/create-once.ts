import type { FastifyRequest } from 'fastify';
import { inTransaction } from '../../storage/db-context.js';
import { recoveredObjectId } from '../../http/idempotency.js';
import type { Db } from '../../storage/db.js';
import { recordRecoveryPoint } from './repository.js';

/**
 * Runs a create at most once per idempotency key, also when the process dies between the create's
 * commit and its answer being stored on the key: the transaction that creates the object writes its
 * id onto the claim, and a retry that takes the claim over answers with that object (read afresh)
 * instead of creating another. Without a key it is just the create in a transaction.
 */
export async function createOnce<C extends { db: Db }, T>(
  ctx: C,
  request: FastifyRequest,
  action: {
    create: (trx: C) => Promise<T>;
    idOf: (created: T) => number;
    find: (id: number) => Promise<T | undefined>;
  },
): Promise<T> {
  const claim = request.idempotencyClaim;
  const earlierId = claim && recoveredObjectId(claim);
  const earlier = earlierId === undefined ? undefined : await action.find(earlierId);
  if (earlier !== undefined) return earlier;
  return inTransaction(ctx, async (trx) => {
    const created = await action.create(trx);
    if (claim) await recordRecoveryPoint(trx.db, claim, action.idOf(created));
    return created;
  });
}
