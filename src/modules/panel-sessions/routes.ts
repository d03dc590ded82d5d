import { inTransaction } from '../../storage/db-context.js';
import type { PanelSessionsContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { panelSessionOf } from '../../http/credentials.js';
import { signInAddress } from '../../lib/client-address.js';
import { assertSameOrigin, clearedPanelCookie } from '../../http/panel-cookie.js';
import { signInByLink } from '../auth/index.js';
import { endPanelSession } from './end-session.js';
import { PanelSessionView, SignedOut, SignInBody, SignInLinkBody } from './schemas.js';
import { gatewayFacts, sessionAnswer } from './session-answer.js';
import { openPanelSession, startPanelSession } from './start-session.js';

const tags = ['Control panel'];

/**
 * The control panel's own session (docs/security.md, "Control-panel session"): sign in, who am I (with
 * the CSRF token, so a reloaded panel gets it back), sign out. The cookie is HttpOnly: the panel's
 * script never holds the session token.
 */
export function panelSessionRoutes(app: App, ctx: PanelSessionsContext): void {
  app.post(
    '/auth/session',
    {
      schema: {
        operationId: 'createPanelSession',
        summary: 'Sign in to the control panel (sets the session cookie)',
        tags,
        body: SignInBody,
        response: { 200: PanelSessionView },
      },
      config: { auth: 'none', signIn: true, answers: [401] },
    },
    async (request, reply) => {
      // No sign-in from another site's page (login CSRF would sign the victim into the attacker's account).
      assertSameOrigin(request, ctx.config);
      return sessionAnswer(
        ctx,
        reply,
        await startPanelSession(ctx, { ...request.body, address: signInAddress(request.ip) }),
      );
    },
  );

  app.post(
    '/auth/session/link',
    {
      schema: {
        operationId: 'createPanelSessionFromLink',
        summary: 'Sign in to the control panel with an e-mailed single-use sign-in link (sets the session cookie)',
        description:
          'While an account is guarded after failed sign-ins from many addresses, a right password gets this link by e-mail instead of a session (docs/decisions.md, "Sign-in lock-out").',
        tags,
        body: SignInLinkBody,
        response: { 200: PanelSessionView },
      },
      config: { auth: 'none', signIn: true, answers: [410] },
    },
    async (request, reply) => {
      assertSameOrigin(request, ctx.config);
      const started = await inTransaction(ctx, async (trx) =>
        openPanelSession({ ...trx, secrets: ctx.secrets }, await signInByLink(trx, request.body)),
      );
      return sessionAnswer(ctx, reply, started);
    },
  );

  app.get(
    '/auth/session',
    {
      schema: {
        operationId: 'getPanelSession',
        summary: 'The signed-in control-panel session',
        tags,
        response: { 200: PanelSessionView },
      },
      config: { auth: 'session' },
    },
    async (request, reply) => {
      const session = panelSessionOf(request);
      reply.header('Cache-Control', 'no-store');
      return {
        user: { id: session.userId, email: session.email, role: session.role },
        merchant: { id: session.merchantId, name: session.merchantName },
        csrfToken: session.csrfToken,
        ...gatewayFacts(ctx.config),
        expiresAt: session.expiresAt.toISOString(),
      };
    },
  );

  app.delete(
    '/auth/session',
    {
      schema: {
        operationId: 'deletePanelSession',
        summary: 'Sign out of the control panel (the session ends at once, the cookie is cleared)',
        tags,
        response: { 200: SignedOut },
      },
      config: { auth: 'session' },
    },
    async (request, reply) => {
      const session = request.panelSession;
      if (session) await endPanelSession(ctx, { sessionId: session.sessionId });
      reply.header('Set-Cookie', clearedPanelCookie(ctx.config));
      return { signedOut: true as const };
    },
  );
}
