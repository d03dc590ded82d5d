import type { PanelSession, PanelSessionVerifier } from '../../http/actors.js';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import { extendSession, findLiveSession } from './repository.js';
import { csrfTokenOf, hashSessionToken, isWellFormedSessionToken, slidingExpiry } from './tokens.js';

/** Writes the moved expiry only when it moved by more than this, not on every request of a busy panel. */
const EXTEND_STEP_MS = 60_000;

/**
 * Turns the panel's session cookie into the session it names, or null when the token is malformed,
 * unknown, signed out or expired. Each use moves the idle time-out on (slidingExpiry).
 */
export function panelSessionVerifier(deps: { db: Db; clock: Clock; secret: string }): PanelSessionVerifier {
  return {
    async verify(token: string): Promise<PanelSession | null> {
      if (!isWellFormedSessionToken(token)) return null;
      const hash = hashSessionToken(token);
      const now = deps.clock.now();
      const row = await findLiveSession(deps.db, hash, now);
      if (!row) return null;
      let expiresAt = row.expires_at;
      const moved = slidingExpiry(row.created_at, now);
      if (moved.getTime() - expiresAt.getTime() > EXTEND_STEP_MS) {
        await extendSession(deps.db, row.id, moved);
        expiresAt = moved;
      }
      return {
        sessionId: row.id,
        userId: row.user_id,
        email: row.email,
        role: row.role,
        merchantId: row.merchant_id,
        merchantName: row.merchant_name,
        merchantStatus: row.merchant_status,
        expiresAt,
        csrfToken: csrfTokenOf(deps.secret, hash),
      };
    },
  };
}
