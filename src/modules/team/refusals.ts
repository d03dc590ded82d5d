import { AppError } from '../../errors.js';
import type { Db } from '../../storage/db.js';
import { lockOwners } from './repository.js';

/** Refuses a change that would leave the merchant without an owner (the owners' rows stay locked). */
export async function keepAnOwner(db: Db, merchantId: number, leaving: number, what: string): Promise<void> {
  const owners = await lockOwners(db, merchantId);
  if (owners.length === 1 && owners[0] === leaving) {
    throw new AppError('LAST_OWNER', `The merchant's last owner cannot be ${what}; make another user an owner first`);
  }
}

/** An e-mail address has one user in the whole gateway (it is the sign-in name). */
export const alreadyRegistered = (email: string) =>
  new AppError('EMAIL_ALREADY_REGISTERED', `A user with e-mail ${email} already exists`, {
    details: { field: 'email', value: email },
  });
