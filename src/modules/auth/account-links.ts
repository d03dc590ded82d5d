import type { AuthContext } from './context.js';
import { AppError } from '../../errors.js';
import {
  composeLinkMail,
  hashLinkToken,
  isWellFormedLinkToken,
  newLinkToken,
  type LinkTokenKind,
} from '../../lib/link-token.js';
import type { AccountLinkKind } from './tables.js';
import { queueNotice, type NoticeComposer } from '../notifications/index.js';
import {
  countLinksSince,
  findLinkByNotice,
  insertLink,
  lockLinkByHash,
  markLinkUsed,
  setLinkNotice,
} from './repository.js';

/**
 * Single-use links e-mailed to a user (docs/decisions.md, "Password reset"): a password reset (valid 1
 * hour) and a sign-in link (15 minutes, sent to a right password on a guarded e-mail: lock-out.ts). Like
 * team invitations, the token is 256 random bits put through the gateway's secret, stored only as its
 * SHA-256 and composed into the mail at send time (lib/link-token.ts); the link carries it in the URL
 * fragment, which no server or log sees.
 */
interface LinkKind extends LinkTokenKind {
  ttlMs: number;
  /** The panel's page that takes the token. */
  page: string;
  subject: string;
  text: (link: string, expiresAt: Date) => string;
}

export const LINK_KINDS: Record<AccountLinkKind, LinkKind> = {
  password_reset: {
    prefix: 'pwr',
    purpose: 'password-reset',
    ttlMs: 3600 * 1000,
    page: 'reset-password',
    subject: 'Choose a new password for the control panel',
    text: (link, expiresAt) =>
      [
        'Someone (we hope you) asked to reset the password of your control-panel account.',
        '',
        `Choose a new one here (the link works once, until ${expiresAt.toISOString()}):`,
        link,
        '',
        'Choosing a new password signs you out everywhere. If you did not ask for this, ignore this e-mail: your password stays as it is.',
      ].join('\n'),
  },
  sign_in: {
    prefix: 'sil',
    purpose: 'sign-in-link',
    ttlMs: 15 * 60 * 1000,
    page: 'sign-in-link',
    subject: 'Your sign-in link for the control panel',
    text: (link, expiresAt) =>
      [
        'Your account saw many failed sign-in attempts from several addresses, so the password alone does not sign in for a while.',
        '',
        `Your password was right: sign in with this link (it works once, until ${expiresAt.toISOString()}):`,
        link,
        '',
        'If you did not just sign in, someone knows your password: change it at once.',
      ].join('\n'),
  },
};

/** Stands where the link goes in the stored notice: the notices table never holds the token. */
export const LINK_PLACEHOLDER = '[the link: in the e-mail only, never stored]';

/** A stranger can make a user's mailbox receive at most this many links an hour (the request answers alike). */
const MAX_LINKS_PER_HOUR = 3;

const pageLink = (publicUrl: string, page: string, token: string) =>
  `${publicUrl.replace(/\/+$/, '')}/panel/#/${page}?token=${token}`;

/**
 * A new link of `kind` for the user and its e-mail notice, to the user alone; nothing when the user was
 * sent MAX_LINKS_PER_HOUR links in the last hour already. The caller owns the transaction.
 */
export async function sendAccountLink(
  ctx: Pick<AuthContext, 'db' | 'clock' | 'secrets'>,
  input: { kind: AccountLinkKind; user: { id: number; merchant_id: number; email: string } },
): Promise<void> {
  const now = ctx.clock.now();
  if ((await countLinksSince(ctx.db, input.user.id, new Date(now.getTime() - 3600 * 1000))) >= MAX_LINKS_PER_HOUR)
    return;
  const kind = LINK_KINDS[input.kind];
  const { hash, nonce } = newLinkToken(ctx.secrets.jwtSecret, kind);
  const expiresAt = new Date(now.getTime() + kind.ttlMs);
  const linkId = await insertLink(ctx.db, {
    userId: input.user.id,
    merchantId: input.user.merchant_id,
    kind: input.kind,
    tokenHash: hash,
    tokenNonce: nonce,
    createdAt: now,
    expiresAt,
  });
  const noticeId = await queueNotice(ctx, {
    merchantId: input.user.merchant_id,
    kind: input.kind === 'password_reset' ? 'password_reset' : 'sign_in_link',
    to: [input.user.email],
    subject: kind.subject,
    text: kind.text(LINK_PLACEHOLDER, expiresAt),
  });
  if (noticeId !== undefined) await setLinkNotice(ctx.db, linkId, noticeId);
}

/**
 * The mail of a link's notice, composed when it is sent: no mail (null) for a link used, ended or
 * expired meanwhile, or when the gateway's secret changed (the link would not work).
 */
export function accountLinkMail(ctx: Pick<AuthContext, 'db' | 'clock' | 'secrets' | 'config'>): NoticeComposer {
  return async (notice) => {
    const link = await findLinkByNotice(ctx.db, notice.id);
    if (!link || link.used_at || link.expires_at <= ctx.clock.now()) return null;
    const kind = LINK_KINDS[link.kind];
    return composeLinkMail({
      secret: ctx.secrets.jwtSecret,
      kind,
      row: link,
      body: notice.body,
      placeholder: LINK_PLACEHOLDER,
      link: (token) => pageLink(ctx.config.publicUrl, kind.page, token),
    });
  };
}

const invalid = (reason: 'unknown' | 'expired' | 'used') =>
  new AppError('LINK_INVALID', `This link is not valid (${reason}); ask for a new one`, { details: { reason } });

/**
 * Uses up a link of `kind`: its user, or 410 LINK_INVALID (`unknown`, `expired`, `used`) changing nothing.
 * The row stays locked until the caller's transaction ends, so a link works once.
 */
export async function useAccountLink(
  ctx: Pick<AuthContext, 'db' | 'clock'>,
  input: { kind: AccountLinkKind; token: string },
) {
  if (!isWellFormedLinkToken(LINK_KINDS[input.kind], input.token)) throw invalid('unknown');
  const link = await lockLinkByHash(ctx.db, hashLinkToken(input.token), input.kind);
  if (!link) throw invalid('unknown');
  if (link.used_at) throw invalid('used');
  const now = ctx.clock.now();
  if (link.expires_at <= now) throw invalid('expired');
  await markLinkUsed(ctx.db, link.id, now);
  return link;
}
