import {
  hashLinkToken,
  isWellFormedLinkToken,
  linkToken,
  newLinkToken,
  type LinkTokenKind,
} from '../../lib/link-token.js';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** inv_ + 43 base64url characters (lib/link-token.ts: never stored, derived again when the mail is sent). */
export const INVITATION_TOKEN: LinkTokenKind = { prefix: 'inv', purpose: 'team-invitation' };

export const isWellFormedInvitationToken = (token: string) => isWellFormedLinkToken(INVITATION_TOKEN, token);

export const hashInvitationToken = hashLinkToken;

export const invitationToken = (secret: string, nonce: string) => linkToken(secret, INVITATION_TOKEN, nonce);

export const newInvitationToken = (secret: string) => newLinkToken(secret, INVITATION_TOKEN);
