import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { panelCookie } from '../../http/panel-cookie.js';
import type { StartedSession } from './start-session.js';
import { PANEL_SESSION_MAX_SECONDS } from './tokens.js';

/** The answer of a sign-in (or an accepted invitation): the session cookie set, the session described. */
export function sessionAnswer(ctx: Pick<AppContext, 'config'>, reply: FastifyReply, started: StartedSession) {
  const { token, expiresAt, ...session } = started;
  reply
    .header('Set-Cookie', panelCookie(ctx.config, token, PANEL_SESSION_MAX_SECONDS))
    .header('Cache-Control', 'no-store');
  return { ...session, checkoutUrl: ctx.config.checkoutUrl, expiresAt: expiresAt.toISOString() };
}
