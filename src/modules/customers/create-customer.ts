import { conflict } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import { findCustomer, insertCustomer, isMemberIdTaken, type CustomerScope } from './repository.js';
import type { CreateCustomerInput, Customer } from './schemas.js';

export const memberIdTaken = (memberId: string | null | undefined) =>
  conflict(`memberId '${memberId}' is already used by another customer`, { field: 'memberId', value: memberId });

/** Creates a customer of the caller's merchant and mode. The caller owns the transaction. */
export async function createCustomer(
  trx: Db,
  clock: Clock,
  scope: CustomerScope & { userId: number },
  input: CreateCustomerInput,
): Promise<Customer> {
  let id: number;
  try {
    id = await insertCustomer(trx, {
      ...scope,
      now: clock.now(),
      name: input.name,
      email: input.email,
      address: input.address ?? null,
      phone: input.phone ?? null,
      member_id: input.memberId ?? null,
    });
  } catch (error) {
    // The unique index decides, so two creations racing on one memberId cannot both succeed.
    if (isMemberIdTaken(error)) throw memberIdTaken(input.memberId);
    throw error;
  }
  return (await findCustomer(trx, scope, id))!;
}
