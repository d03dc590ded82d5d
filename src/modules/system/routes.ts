import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.js';
import type { SystemContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { requireMerchant } from '../../http/credentials.js';

export function systemRoutes(app: App, ctx: SystemContext): void {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        summary: 'Liveness: the process is up',
        tags: ['System'],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
      config: { auth: 'none' },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness: storage is reachable',
        tags: ['System'],
        response: { 200: Type.Object({ status: Type.Literal('ok'), storage: Type.Literal('postgres') }) },
      },
      config: { auth: 'none' },
    },
    async () => {
      try {
        await ctx.storage.ping();
      } catch {
        throw new AppError('SERVICE_UNAVAILABLE', 'Storage is not reachable');
      }
      return { status: 'ok' as const, storage: 'postgres' as const };
    },
  );

  app.get(
    '/ping',
    {
      schema: {
        operationId: 'ping',
        summary: 'Check an API key',
        tags: ['System'],
        response: {
          200: Type.Object({
            status: Type.Literal('ok'),
            message: Type.String(),
            timestamp: Type.String({ format: 'date-time' }),
          }),
        },
      },
      config: { auth: 'api_key' },
    },
    async (request) => {
      const merchant = requireMerchant(request);
      return {
        status: 'ok' as const,
        message: `pong: authenticated for merchant ${merchant.merchantId} in ${merchant.mode} mode`,
        timestamp: ctx.clock.now().toISOString(),
      };
    },
  );
}
