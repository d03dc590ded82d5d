import { AppError, notFound } from '../../errors.js';
import type { DbContext } from '../../storage/db-context.js';
import { memberIdTaken } from './create-customer.js';
import {
  findCustomer,
  isMemberIdTaken,
  updateCustomerRow,
  type CustomerChanges,
  type CustomerScope,
} from './repository.js';
import { UPDATABLE_FIELDS, type Customer, type UpdateCustomerInput } from './schemas.js';

/**
 * Changes the fields sent (absent = unchanged, null = cleared). An empty change is refused
 * rather than treated as a no-op: it is almost always a client bug (a misspelt field name,
 * visible in X-Ignored-Fields). The caller owns the transaction.
 */
export async function updateCustomer(
  ctx: DbContext,
  input: { scope: CustomerScope; id: number; changes: UpdateCustomerInput },
): Promise<Customer> {
  const { scope, id } = input;
  const { memberId, ...rest } = input.changes;
  const changes: CustomerChanges = { ...rest, ...(memberId !== undefined ? { member_id: memberId } : {}) };
  if (Object.keys(changes).length === 0) {
    throw new AppError('VALIDATION_ERROR', `Send at least one field to change: ${UPDATABLE_FIELDS.join(', ')}`, {
      details: { missingFields: [], expectedAnyOf: UPDATABLE_FIELDS },
    });
  }
  let updated: boolean;
  try {
    updated = await updateCustomerRow(ctx.db, scope, id, changes, ctx.clock.now());
  } catch (error) {
    if (isMemberIdTaken(error)) throw memberIdTaken(memberId);
    throw error;
  }
  if (!updated) throw notFound('customer');
  return (await findCustomer(ctx.db, scope, id))!;
}
