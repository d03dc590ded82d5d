import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { inAuditedTransaction } from '../audit/index.js';
import { signInAddress } from '../../lib/client-address.js';
import { panelSessionOf } from '../../http/credentials.js';
import { assertSameOrigin } from '../../http/panel-cookie.js';
import { inTransaction } from '../../storage/db-context.js';
import type { AuthContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { awaitKeyCacheAcknowledgements, listApiKeys, rotateApiKey } from '../api-keys/index.js';
import { changePassword, checkPasswordChange } from './change-password.js';
import { login } from './login.js';
import { requestPasswordReset, RESET_REQUESTED } from './request-password-reset.js';
import { resetPassword } from './reset-password.js';
import {
  PasswordChange,
  PasswordChanged,
  PasswordReset,
  PasswordResetConfirm,
  PasswordResetRequest,
  PasswordResetRequested,
} from './schemas.js';

const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, description: "The user's e-mail address" }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

const LoginResponse = Type.Object({
  accessToken: Type.String({ description: 'Bearer JWT for the control-panel API' }),
  expireDate: Type.String({ format: 'date-time', description: 'ISO 8601 UTC expiry of the access token' }),
});

const UserParams = Type.Object({ userId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

const KeySummary = Type.Object({
  mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
  prefix: Type.String({ description: 'The first characters of the key; the key itself was shown once' }),
  createdAt: Type.String({ format: 'date-time' }),
  exposedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the key was seen in a public place (the legacy checkout URL): rotate it',
  }),
});

/** A user acts only on itself: its own keys. */
function ownUser(request: FastifyRequest, userId: number): number {
  const actor = request.actor;
  if (actor?.kind !== 'user' || actor.userId !== userId) {
    throw new AppError('FORBIDDEN', 'You may only manage the API keys of your own user');
  }
  return actor.userId;
}

export function authRoutes(app: App, ctx: AuthContext): void {
  app.post(
    '/auth/login',
    {
      schema: {
        operationId: 'logIn',
        summary: 'Sign in to the control panel',
        tags: ['Control panel'],
        body: LoginBody,
        response: { 200: LoginResponse },
      },
      config: { auth: 'none', signIn: true, answers: [401] },
    },
    async (request) => login(ctx, { ...request.body, address: signInAddress(request.ip) }),
  );

  app.post(
    '/auth/password-reset',
    {
      schema: {
        operationId: 'requestPasswordReset',
        summary: 'Forgot password: e-mail a single-use link (valid 1 hour) to choose a new one',
        description:
          'Answers the same whether or not a user has the address, and sends nothing when none has (or after 3 links in an hour).',
        tags: ['Control panel'],
        body: PasswordResetRequest,
        response: { 202: PasswordResetRequested },
      },
      config: { auth: 'none', signIn: true },
    },
    async (request, reply) => {
      assertSameOrigin(request, ctx.config);
      await inTransaction(ctx, (trx) => requestPasswordReset({ ...trx, secrets: ctx.secrets }, request.body));
      return reply.code(202).header('Cache-Control', 'no-store').send({ message: RESET_REQUESTED });
    },
  );

  app.post(
    '/auth/password-reset/confirm',
    {
      schema: {
        operationId: 'confirmPasswordReset',
        summary: "Set a new password with the reset e-mail's link: every session and access token of the user ends",
        tags: ['Control panel'],
        body: PasswordResetConfirm,
        response: { 200: PasswordReset },
      },
      config: { auth: 'none', signIn: true, answers: [410] },
    },
    async (request) => {
      assertSameOrigin(request, ctx.config);
      return inTransaction(ctx, (trx) => resetPassword(trx, request.body));
    },
  );

  app.put(
    '/auth/password',
    {
      schema: {
        operationId: 'changePassword',
        summary: "Change the signed-in user's password: every other session and every access token ends",
        tags: ['Control panel'],
        body: PasswordChange,
        response: { 200: PasswordChanged },
      },
      config: { auth: 'session', signIn: true },
    },
    async (request) => {
      const session = panelSessionOf(request);
      const { passwordHash } = await checkPasswordChange(ctx, {
        userId: session.userId,
        currentPassword: request.body.currentPassword,
        newPassword: request.body.newPassword,
        address: signInAddress(request.ip),
      });
      return inAuditedTransaction(ctx, request, 'user.password_changed', (trx) =>
        changePassword(trx, { userId: session.userId, sessionId: session.sessionId, passwordHash }),
      );
    },
  );

  app.put(
    '/users/:userId/apikey',
    {
      schema: {
        operationId: 'rotateApiKey',
        summary: 'Generate a new API key (the previous key of that mode stops working at once)',
        tags: ['Control panel'],
        params: UserParams,
        querystring: Type.Object({
          mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { default: 'test' })),
        }),
        response: { 200: Type.String({ description: 'The new API key, shown only this once' }) },
      },
      config: { auth: 'user' },
    },
    async (request, reply) => {
      const userId = ownUser(request, request.params.userId);
      const mode = request.query.mode ?? 'test';
      const key = await inAuditedTransaction(ctx, request, 'api_key.rotated', (trx) =>
        rotateApiKey(trx, { userId, mode }),
      );
      // Answered only once no instance's key cache can still accept the replaced key.
      await awaitKeyCacheAcknowledgements(ctx);
      // The body is a JSON string ("svc_…"): Fastify would send a bare string reply as text/plain, unquoted.
      return reply.type('application/json').send(JSON.stringify(key));
    },
  );

  app.get(
    '/users/:userId/apikeys',
    {
      schema: {
        operationId: 'listApiKeys',
        summary: 'The active API keys of a user, described (prefix, creation, exposure), never the keys',
        tags: ['Control panel'],
        params: UserParams,
        response: { 200: Type.Array(KeySummary) },
      },
      config: { auth: 'user' },
    },
    async (request) => listApiKeys(ctx, { userId: ownUser(request, request.params.userId) }),
  );
}
