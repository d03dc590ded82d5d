import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../lib/clock.js';

const ISSUER = 'svc-gateway';
const AUDIENCE = 'svc-gateway:control-panel';
const ALGORITHM = 'HS256';
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

export interface AccessClaims {
  userId: number;
  merchantId: number;
}

/** Control-panel access tokens: HS256 only, fixed issuer and audience, one hour. */
export function createAccessTokens(secret: string, clock: Clock) {
  const key = new TextEncoder().encode(secret);
  return {
    async issue(claims: AccessClaims): Promise<{ accessToken: string; expireDate: string }> {
      const issuedAt = Math.floor(clock.now().getTime() / 1000);
      const expiresAt = issuedAt + ACCESS_TOKEN_TTL_SECONDS;
      const accessToken = await new SignJWT({ mid: claims.merchantId })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(String(claims.userId))
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(key);
      return { accessToken, expireDate: new Date(expiresAt * 1000).toISOString() };
    },

    /** Null for anything but a valid, unexpired token of ours (alg "none" and other algorithms included). */
    async verify(token: string): Promise<AccessClaims | null> {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: clock.now(),
          requiredClaims: ['sub', 'exp', 'mid'],
        });
        const userId = Number(payload.sub);
        const merchantId = Number(payload.mid);
        if (!Number.isSafeInteger(userId) || !Number.isSafeInteger(merchantId)) return null;
        return { userId, merchantId };
      } catch {
        return null;
      }
    },
  };
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;
