import { conflict, invalidFormat } from '../../errors.js';
import { normalizeEmail } from '../../lib/email.js';
import type { Db } from '../../storage/db.js';
import { assertPasswordRules, hashPassword } from './passwords.js';
import { findUserByEmail, insertMerchant, insertUser } from './repository.js';

export interface CreateMerchantInput {
  email: string;
  password: string;
  name: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The e-mail address a user signs in with, normalized; INVALID_FORMAT when it is not one. */
export function checkedEmail(input: string): string {
  const email = normalizeEmail(input);
  if (!EMAIL.test(email) || email.length > 100)
    throw invalidFormat('email', input, 'email must be a valid e-mail address of at most 100 characters');
  return email;
}

/** Checks the input without touching storage (the CLI refuses bad input before opening the store). */
export function validateMerchantInput(input: CreateMerchantInput): { email: string; name: string } {
  const email = checkedEmail(input.email);
  const name = input.name.trim();
  assertPasswordRules(input.password);
  if (name.length < 1 || name.length > 100) throw invalidFormat('name', input.name, 'name must be 1-100 characters');
  return { email, name };
}

/** Creates a merchant account and its first user. The caller owns the transaction. */
export async function createMerchant(ctx: { db: Db }, input: CreateMerchantInput) {
  const { db } = ctx;
  const { email, name } = validateMerchantInput(input);
  if (await findUserByEmail(db, email)) throw conflict(`a user with e-mail ${email} already exists`);

  const passwordHash = await hashPassword(input.password);
  try {
    const merchant = await insertMerchant(db, { name });
    const user = await insertUser(db, { merchantId: merchant.id, email, passwordHash });
    return { merchantId: merchant.id, userId: user.id, email };
  } catch (error) {
    // Two creations racing on one e-mail: the unique index decides.
    if ((error as { code?: string }).code === '23505') throw conflict(`a user with e-mail ${email} already exists`);
    throw error;
  }
}
