import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../storage/db.js';
import { findTokenHolder } from './repository.js';

const ISSUER = 'svc-gateway';
const AUDIENCE = 'svc-gateway:control-panel';
const ALGORITHM = 'HS256';
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

export interface AccessClaims {
  userId: number;
  merchantId: number;
}

/**
 * Control-panel access tokens: HS256 only, fixed issuer and audience, one hour. Each carries its user's
 * token generation (`gen`) and is checked against the user at every use (one primary-key read): a user
 * removed from the team, or whose password changed since, is refused at once, on every instance.
 */
export function createAccessTokens(secret: string, clock: Clock, db: Db) {
  const key = new TextEncoder().encode(secret);
  return {
    async issue(claims: AccessClaims & { generation: number }): Promise<{ accessToken: string; expireDate: string }> {
      const issuedAt = Math.floor(clock.now().getTime() / 1000);
      const expiresAt = issuedAt + ACCESS_TOKEN_TTL_SECONDS;
      const accessToken = await new SignJWT({ mid: claims.merchantId, gen: claims.generation })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(String(claims.userId))
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(key);
      return { accessToken, expireDate: new Date(expiresAt * 1000).toISOString() };
    },

    /**
     * Null for anything but a valid, unexpired token of ours (alg "none" and other algorithms included)
     * whose user is still on the team, in the generation the token was issued in.
     */
    async verify(token: string): Promise<AccessClaims | null> {
      let claims: AccessClaims & { generation: number };
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: clock.now(),
          requiredClaims: ['sub', 'exp', 'mid'],
        });
        // A token issued before tokens carried it is of the first generation: it ends with the first change.
        claims = { userId: Number(payload.sub), merchantId: Number(payload.mid), generation: Number(payload.gen ?? 0) };
      } catch {
        return null;
      }
      if (![claims.userId, claims.merchantId, claims.generation].every(Number.isSafeInteger)) return null;
      const holder = await findTokenHolder(db, claims.userId);
      if (!holder || holder.merchant_id !== claims.merchantId || holder.token_generation !== claims.generation) {
        return null;
      }
      return { userId: claims.userId, merchantId: claims.merchantId };
    },
  };
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;
