import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { RouteCatalog } from './openapi.js';

/** 405 with Allow when the path exists under other methods, else 404. */
export function routeNotFound(catalog: RouteCatalog, request: FastifyRequest): AppError {
  const path = request.url.split('?')[0];
  const methods = catalog.methodsFor(path);
  // Fastify answers HEAD wherever it answers GET.
  if (methods.includes('GET')) methods.push('HEAD');
  const allowed = methods.filter((m) => m !== request.method);
  if (allowed.length > 0) {
    return new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`, {
      headers: { Allow: allowed.join(', ') },
    });
  }
  return new AppError('NOT_FOUND', `No route ${request.method} ${request.originalUrl.split('?')[0]}`);
}
