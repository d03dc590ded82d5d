import type { FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import type { PanelSessionsContext } from './context.js';
import { cardKeyInStore } from '../../storage/secrets.js';
import { panelCookie } from '../../http/panel-cookie.js';
import type { StartedSession } from './start-session.js';
import { PANEL_SESSION_MAX_SECONDS } from './tokens.js';

/** The answer of a sign-in (or an accepted invitation): the session cookie set, the session described. */
export function sessionAnswer(ctx: Pick<PanelSessionsContext, 'config'>, reply: FastifyReply, started: StartedSession) {
  const { token, expiresAt, ...session } = started;
  reply
    .header('Set-Cookie', panelCookie(ctx.config, token, PANEL_SESSION_MAX_SECONDS))
    .header('Cache-Control', 'no-store');
  return { ...session, ...gatewayFacts(ctx.config), expiresAt: expiresAt.toISOString() };
}

/**
 * What the panel must know of the gateway it talks to: where the checkout is, and whether this is a
 * development store, where a live key makes the next start refuse (api-keys/refuse-live-keys-on-development-store.ts).
 */
export const gatewayFacts = (config: Config) => ({
  checkoutUrl: config.checkoutUrl,
  developmentStore: cardKeyInStore(config),
});
