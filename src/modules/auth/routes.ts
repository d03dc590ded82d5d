import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.js';
import { inTransaction, type App, type AppContext } from '../../context.js';
import { awaitKeyCacheAcknowledgements, rotateApiKey } from '../api-keys/index.js';
import { login } from './login.js';

const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, description: "The user's e-mail address" }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

const LoginResponse = Type.Object({
  accessToken: Type.String({ description: 'Bearer JWT for the control-panel API' }),
  expireDate: Type.String({ format: 'date-time', description: 'ISO 8601 UTC expiry of the access token' }),
});

export function authRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/auth/login',
    {
      schema: {
        summary: 'Sign in to the control panel',
        tags: ['Control panel'],
        body: LoginBody,
        response: { 200: LoginResponse },
      },
      config: { auth: 'none' },
    },
    async (request) => login(ctx, request.body),
  );

  app.put(
    '/users/:userId/apikey',
    {
      schema: {
        summary: 'Generate a new API key (the previous key of that mode stops working at once)',
        tags: ['Control panel'],
        params: Type.Object({ userId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
        querystring: Type.Object({
          mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { default: 'test' })),
        }),
        response: { 200: Type.String({ description: 'The new API key, shown only this once' }) },
      },
      config: { auth: 'user' },
    },
    async (request, reply) => {
      const actor = request.actor!;
      if (actor.kind !== 'user' || actor.userId !== request.params.userId) {
        throw new AppError('FORBIDDEN', 'You may only generate an API key for your own user');
      }
      const mode = request.query.mode ?? 'test';
      const key = await inTransaction(ctx, (trx) => rotateApiKey(trx, { userId: actor.userId, mode }));
      // Answered only once no instance's key cache can still accept the replaced key.
      await awaitKeyCacheAcknowledgements(ctx);
      // The body is a JSON string ("svc_…"): Fastify would send a bare string reply as text/plain, unquoted.
      return reply.type('application/json').send(JSON.stringify(key));
    },
  );
}
