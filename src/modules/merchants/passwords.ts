import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../../errors.js';

// argon2id with the library's defaults (m=19 MiB, t=2, p=1: OWASP's minimum recommendation).
export const hashPassword = (password: string) => hash(password);

/** A hash of a random password, verified against when the e-mail is unknown so both cases cost the same. */
const DUMMY_HASH = hash(`dummy-${Math.random()}-${Date.now()}`);

export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  try {
    const ok = await verify(storedHash ?? (await DUMMY_HASH), password);
    return ok && storedHash !== undefined;
  } catch {
    return false;
  }
}

const MIN_PASSWORD_LENGTH = 12;

/** The rules a new password must meet (a merchant's first user, an invited teammate). */
export function assertPasswordRules(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError('INVALID_FORMAT', `password must be at least ${MIN_PASSWORD_LENGTH} characters`, {
      details: { field: 'password', value: '[redacted]' },
    });
  }
}
