import { createHmac } from 'node:crypto';
import { randomBase62, sha256Hex } from './crypto.js';

/**
 * The token of a single-use e-mailed link (a team invitation, a password reset, a sign-in link):
 * `<prefix>_` + HMAC-SHA256(gateway secret, purpose + a random nonce), 43 base64url characters. The
 * row keeps the nonce and the token's SHA-256, never the token: the database alone cannot give it back,
 * yet the e-mail job, which runs later and maybe elsewhere, derives it again to put it into the mail.
 * The prefix lets logs redact it by pattern.
 */
export interface LinkTokenKind {
  prefix: string;
  /** Kept apart from every other use of the secret. */
  purpose: string;
}

/** 43 base62 characters: 256 random bits. */
const NONCE_LENGTH = 43;

export const linkToken = (secret: string, kind: LinkTokenKind, nonce: string) =>
  `${kind.prefix}_${createHmac('sha256', secret).update(`${kind.purpose}\n${nonce}`).digest('base64url')}`;

/** Stored only as SHA-256, like API keys and session tokens: with this much entropy a slow hash adds nothing. */
export const hashLinkToken = (token: string) => sha256Hex(token);

export const isWellFormedLinkToken = (kind: LinkTokenKind, token: string) =>
  token.startsWith(`${kind.prefix}_`) && /^[\w-]{43}$/.test(token.slice(kind.prefix.length + 1));

export function newLinkToken(secret: string, kind: LinkTokenKind): { token: string; hash: string; nonce: string } {
  const nonce = randomBase62(NONCE_LENGTH);
  const token = linkToken(secret, kind, nonce);
  return { token, hash: hashLinkToken(token), nonce };
}

/**
 * The mail of a link's notice, composed at send time: the stored text with `placeholder` replaced by the
 * link, the token derived again from the row's nonce. Null (no mail) when the token no longer matches
 * the stored hash: the secret changed, so the link would not work.
 */
export function composeLinkMail(input: {
  secret: string;
  kind: LinkTokenKind;
  row: { token_nonce: string; token_hash: string };
  body: string;
  placeholder: string;
  link: (token: string) => string;
}): string | null {
  const token = linkToken(input.secret, input.kind, input.row.token_nonce);
  if (hashLinkToken(token) !== input.row.token_hash) return null;
  return input.body.replace(input.placeholder, input.link(token));
}
