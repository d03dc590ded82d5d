import type { DbContext } from '../../storage/db-context.js';
import { useAccountLink } from './account-links.js';
import type { SignedInUser } from './login.js';

/**
 * The e-mailed sign-in link of a guarded account (lock-out.ts) establishes who is signing in, as a right
 * password would: its user, the link used up. The caller owns the transaction and opens the session.
 */
export async function signInByLink(ctx: DbContext, input: { token: string }): Promise<SignedInUser> {
  const link = await useAccountLink(ctx, { kind: 'sign_in', token: input.token });
  return {
    userId: link.user_id,
    merchantId: link.merchant_id,
    email: link.email,
    role: link.role,
    generation: link.token_generation,
  };
}
