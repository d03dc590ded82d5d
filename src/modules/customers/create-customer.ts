import { conflict } from '../../errors.js';
import type { DbContext } from '../../storage/db-context.js';
import { findCustomer, insertCustomer, isMemberIdTaken, type CustomerScope } from './repository.js';
import type { CreateCustomerInput, Customer } from './schemas.js';

export const memberIdTaken = (memberId: string | null | undefined) =>
  conflict(`memberId '${memberId}' is already used by another customer`, { field: 'memberId', value: memberId });

/** Creates a customer of the caller's merchant and mode. The caller owns the transaction. */
export async function createCustomer(
  ctx: DbContext,
  input: CreateCustomerInput & { scope: CustomerScope & { userId: number } },
): Promise<Customer> {
  const { scope } = input;
  let id: number;
  try {
    id = await insertCustomer(ctx.db, {
      ...scope,
      now: ctx.clock.now(),
      name: input.name,
      email: input.email,
      address: input.address ?? null,
      phone: input.phone ?? null,
      member_id: input.memberId ?? null,
      country: input.country ?? null,
    });
  } catch (error) {
    // The unique index decides, so two creations racing on one memberId cannot both succeed.
    if (isMemberIdTaken(error)) throw memberIdTaken(input.memberId);
    throw error;
  }
  return (await findCustomer(ctx.db, scope, id))!;
}
