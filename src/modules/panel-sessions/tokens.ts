import { createHmac } from 'node:crypto';
import { randomBase62, sha256Hex } from '../../lib/crypto.js';

/** Idle time-out: a session unused this long is over. Each use moves it on, up to the absolute lifetime. */
export const PANEL_SESSION_IDLE_SECONDS = 30 * 60;
/** Absolute lifetime: a working day, then the user signs in again whatever they did. */
export const PANEL_SESSION_MAX_SECONDS = 8 * 3600;

/** pst_ + 43 base62 characters (~256 bits). The prefix lets logs redact it by pattern. */
const RANDOM_LENGTH = 43;
const TOKEN_PATTERN = /^pst_[0-9A-Za-z]{43}$/;

export const isWellFormedSessionToken = (token: string) => TOKEN_PATTERN.test(token);

/** Stored only as SHA-256, like API keys: with this much entropy a slow hash adds nothing. */
export const hashSessionToken = (token: string) => sha256Hex(token);

export function generateSessionToken(): { token: string; hash: string } {
  const token = `pst_${randomBase62(RANDOM_LENGTH)}`;
  return { token, hash: hashSessionToken(token) };
}

/**
 * The session's CSRF token, derived (HMAC with the gateway's secret) from the stored hash, so nothing
 * more is stored and a reloaded panel gets the same token back from GET /auth/session.
 */
export const csrfTokenOf = (secret: string, tokenHash: string) =>
  createHmac('sha256', secret).update(`panel-csrf\n${tokenHash}`).digest('base64url');

/** When a session used at `now` expires: idle time-out from now, never past its absolute lifetime. */
export function slidingExpiry(createdAt: Date, now: Date): Date {
  const idle = now.getTime() + PANEL_SESSION_IDLE_SECONDS * 1000;
  return new Date(Math.min(idle, createdAt.getTime() + PANEL_SESSION_MAX_SECONDS * 1000));
}
