import type { App, AppContext } from '../../context.js';
import { panelSessionOf } from '../../http/credentials.js';
import { assertSameOrigin, clearedPanelCookie } from '../../http/panel-cookie.js';
import { endPanelSession } from './end-session.js';
import { PanelSessionView, SignedOut, SignInBody } from './schemas.js';
import { sessionAnswer } from './session-answer.js';
import { startPanelSession } from './start-session.js';

const tags = ['Control panel'];

/**
 * The control panel's own session (docs/security.md, "Control-panel session"): sign in, who am I (with
 * the CSRF token, so a reloaded panel gets it back), sign out. The cookie is HttpOnly: the panel's
 * script never holds the session token.
 */
export function panelSessionRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/auth/session',
    {
      schema: {
        summary: 'Sign in to the control panel (sets the session cookie)',
        tags,
        body: SignInBody,
        response: { 200: PanelSessionView },
      },
      config: { auth: 'none' },
    },
    async (request, reply) => {
      // No sign-in from another site's page (login CSRF would sign the victim into the attacker's account).
      assertSameOrigin(request, ctx.config);
      return sessionAnswer(ctx, reply, await startPanelSession(ctx, request.body));
    },
  );

  app.get(
    '/auth/session',
    {
      schema: { summary: 'The signed-in control-panel session', tags, response: { 200: PanelSessionView } },
      config: { auth: 'session' },
    },
    async (request, reply) => {
      const session = panelSessionOf(request);
      reply.header('Cache-Control', 'no-store');
      return {
        user: { id: session.userId, email: session.email, role: session.role },
        merchant: { id: session.merchantId, name: session.merchantName },
        csrfToken: session.csrfToken,
        checkoutUrl: ctx.config.checkoutUrl,
        expiresAt: session.expiresAt.toISOString(),
      };
    },
  );

  app.delete(
    '/auth/session',
    {
      schema: {
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
