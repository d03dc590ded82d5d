import { createHmac } from 'node:crypto';
import { randomBase62, sha256Hex } from '../../lib/crypto.js';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** inv_ + 43 base64url characters (256 bits of HMAC). The prefix lets logs redact it by pattern. */
const TOKEN_PATTERN = /^inv_[0-9A-Za-z_-]{43}$/;

export const isWellFormedInvitationToken = (token: string) => TOKEN_PATTERN.test(token);

/** Stored only as SHA-256, like API keys and session tokens. */
export const hashInvitationToken = (token: string) => sha256Hex(token);

/**
 * The link's token, derived from a random nonce (stored) under the gateway's secret (never stored): the
 * database alone never holds the token, yet the e-mail job, which runs later and maybe elsewhere, can
 * compose it into the mail. A nonce without the secret gives nothing.
 */
export const invitationToken = (secret: string, nonce: string) =>
  `inv_${createHmac('sha256', secret).update(`team-invitation\n${nonce}`).digest('base64url')}`;

export function newInvitationToken(secret: string): { token: string; hash: string; nonce: string } {
  const nonce = randomBase62(24);
  const token = invitationToken(secret, nonce);
  return { token, hash: hashInvitationToken(token), nonce };
}
