import type { PanelSessionsContext } from './context.js';
import type { UserRole } from '../merchants/index.js';
import { checkCredentials, type SignedInUser } from '../auth/index.js';
import { deleteExpiredSessions, findMerchantName, insertSession } from './repository.js';
import { csrfTokenOf, generateSessionToken, slidingExpiry } from './tokens.js';

export interface StartedSession {
  /** The cookie's value: given to the browser once, stored only as a hash. */
  token: string;
  csrfToken: string;
  expiresAt: Date;
  user: { id: number; email: string; role: UserRole };
  merchant: { id: number; name: string };
}

/**
 * Control-panel sign-in: the login's own check (argon2, the lock-out rules, the same answer for an
 * unknown e-mail), then a new session.
 */
export async function startPanelSession(
  ctx: Pick<PanelSessionsContext, 'db' | 'clock' | 'secrets'>,
  input: { email: string; password: string; address: string },
): Promise<StartedSession> {
  return openPanelSession(ctx, await checkCredentials(ctx, input));
}

/**
 * A new session for a user whose credentials were just established (sign-in, an accepted invitation, a
 * sign-in link), in the user's token generation as it was read with them.
 */
export async function openPanelSession(
  ctx: Pick<PanelSessionsContext, 'db' | 'clock' | 'secrets'>,
  user: SignedInUser,
): Promise<StartedSession> {
  const now = ctx.clock.now();
  await deleteExpiredSessions(ctx.db, user.userId, now);
  const { token, hash } = generateSessionToken();
  const expiresAt = slidingExpiry(now, now);
  await insertSession(ctx.db, {
    userId: user.userId,
    merchantId: user.merchantId,
    tokenHash: hash,
    createdAt: now,
    expiresAt,
    generation: user.generation,
  });
  return {
    token,
    csrfToken: csrfTokenOf(ctx.secrets.jwtSecret, hash),
    expiresAt,
    user: { id: user.userId, email: user.email, role: user.role },
    merchant: { id: user.merchantId, name: await findMerchantName(ctx.db, user.merchantId) },
  };
}
