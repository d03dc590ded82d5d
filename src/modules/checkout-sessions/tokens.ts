import { randomBase62, sha256Hex } from '../../lib/crypto.js';

/** Spec: a checkout session token lives 15 minutes from minting. */
export const CHECKOUT_TOKEN_TTL_SECONDS = 900;

/** cst_ + 32 base62 characters (~190 random bits). The prefix lets logs redact it by pattern. */
const RANDOM_LENGTH = 32;
const TOKEN_PATTERN = /^cst_[0-9A-Za-z]{32}$/;

export const isWellFormedCheckoutToken = (token: string) => TOKEN_PATTERN.test(token);

/**
 * Looked up by SHA-256 like API keys: with this much entropy a slow hash adds nothing, and a
 * leaked table of hashes lets nobody call the API.
 */
export const hashCheckoutToken = (token: string) => sha256Hex(token);

export function generateCheckoutToken(): { token: string; hash: string } {
  const token = `cst_${randomBase62(RANDOM_LENGTH)}`;
  return { token, hash: hashCheckoutToken(token) };
}
