import type { TeamContext } from './context.js';
import type { UserRole } from '../merchants/index.js';
import type { NoticeComposer } from '../notifications/index.js';
import { composeLinkMail } from '../../lib/link-token.js';
import { INVITATION_TOKEN } from './invitation-token.js';
import { findInvitationByNotice } from './repository.js';

/** Stands where the link goes in the stored notice: the notices table never holds the token. */
export const INVITATION_LINK = '[the invitation link: in the e-mail only, never stored]';

export function invitationText(input: {
  merchantName: string;
  invitedBy: { email: string };
  role: UserRole;
  expiresAt: Date;
  link: string;
}): string {
  return [
    `${input.invitedBy.email} invites you to the team of ${input.merchantName} in the payment gateway's control panel, as ${input.role}.`,
    '',
    `Choose your password and sign in here (the link works once, until ${input.expiresAt.toISOString()}):`,
    input.link,
    '',
    'If you did not expect this invitation, ignore this e-mail.',
  ].join('\n');
}

/** The panel's page that accepts an invitation; the token rides in the fragment, which no server or log sees. */
export const acceptLink = (publicUrl: string, token: string) =>
  `${publicUrl.replace(/\/+$/, '')}/panel/#/accept?token=${token}`;

/**
 * The 'invitation' notice's mail, composed when it is sent: the stored text with the link put in, the
 * token derived again from the invitation's nonce under the gateway's secret. No mail (null) for an
 * invitation accepted, revoked or expired meanwhile, or when the secret changed (the link would not work).
 */
export function invitationMail(ctx: Pick<TeamContext, 'db' | 'clock' | 'secrets' | 'config'>): NoticeComposer {
  return async (notice) => {
    const invitation = await findInvitationByNotice(ctx.db, notice.id);
    if (!invitation || invitation.accepted_at || invitation.revoked_at) return null;
    if (invitation.expires_at <= ctx.clock.now()) return null;
    return composeLinkMail({
      secret: ctx.secrets.jwtSecret,
      kind: INVITATION_TOKEN,
      row: invitation,
      body: notice.body,
      placeholder: INVITATION_LINK,
      link: (token) => acceptLink(ctx.config.publicUrl, token),
    });
  };
}
