import type { DbContext } from '../../storage/db-context.js';
import { presentCallback } from './present.js';
import { findCallbacksOfTransactions } from './repository.js';

/**
 * The provider callbacks received about these processor transactions, oldest first. The caller
 * passes only transaction ids of its own merchant's payments: callbacks carry no merchant themselves.
 */
export async function callbacksOfTransactions(ctx: Pick<DbContext, 'db'>, input: { transactionIds: string[] }) {
  return (await findCallbacksOfTransactions(ctx.db, input.transactionIds)).map(presentCallback);
}
