import type { DbContext } from '../../storage/db-context.js';
import type { App } from '../../http/fastify-app.js';
import { merchantScopeOf } from '../../http/credentials.js';
import { getDashboard } from './get-dashboard.js';
import { Dashboard, DashboardQuery } from './schemas.js';

export function reportRoutes(app: App, ctx: DbContext): void {
  app.get(
    '/reports/dashboard',
    {
      schema: {
        operationId: 'getDashboard',
        summary: 'Dashboard: payment count and approved volume per day, approval rate, top decline reasons',
        description:
          "The key's mode only (test and live are reported separately), by UTC day. Computed from the payments " +
          'at query time, so it is never behind.',
        tags: ['Reports'],
        querystring: DashboardQuery,
        response: { 200: Dashboard },
      },
      config: { auth: 'api_key' },
    },
    async (request) => getDashboard(ctx, { scope: merchantScopeOf(request), query: request.query }),
  );
}
