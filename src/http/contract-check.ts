import type { App } from './fastify-app.js';
import { declaredStatuses } from './error-responses.js';

/**
 * Reports every answer whose status the route's schema does not declare (error-responses.ts says
 * which errors each route declares). The test gateway turns it on and fails the test file that
 * saw one, so the whole suite's traffic proves the OpenAPI document complete. Answers outside any
 * route (404/405 of unknown paths) and undocumented routes (/docs, preflights) are not operations.
 */
export function reportUndeclaredStatuses(app: App, report: (violation: string) => void): void {
  app.addHook('onResponse', async (request, reply) => {
    const { url, schema, config } = request.routeOptions;
    if (url === undefined || !schema || schema.hide) return;
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (!declaredStatuses({ method, url, schema, config }).has(reply.statusCode)) {
      report(`${request.method} ${url} answered ${reply.statusCode}, which its schema does not declare`);
    }
  });
}
