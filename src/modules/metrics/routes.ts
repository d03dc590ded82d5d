import { timingSafeEqual } from 'node:crypto';
import type { MetricsContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { AppError } from '../../errors.js';

/**
 * GET /metrics in Prometheus' text format, for the operator's scraper, not for merchants (hidden from
 * the API reference). With METRICS_TOKEN it takes `Authorization: Bearer <METRICS_TOKEN>`; without
 * it, it is served only in development (production answers 404 as for any unknown path).
 */
export function metricsRoutes(app: App, ctx: MetricsContext): void {
  const token = ctx.config.metricsToken;
  if (!token && ctx.config.env === 'production') return;
  const expected = Buffer.from(`Bearer ${token ?? ''}`);
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'none' } }, async (request, reply) => {
    if (token) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new AppError('UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    }
    return reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics());
  });
}
