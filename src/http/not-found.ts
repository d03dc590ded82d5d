import type { FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../errors.js';

/** The methods each registered path answers, to tell a 405 from a 404. */
export class RouteCatalog {
  private readonly entries: { method: string; pattern: RegExp }[] = [];

  add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(
      `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`,
    );
    for (const method of methods) {
      if (method !== 'HEAD' && method !== 'OPTIONS') this.entries.push({ method, pattern });
    }
  }

  methodsFor(path: string): string[] {
    return [...new Set(this.entries.filter((e) => e.pattern.test(path)).map((e) => e.method))];
  }
}

/** 405 with Allow when the path exists under other methods, else 404. */
export function routeNotFound(catalog: RouteCatalog, request: FastifyRequest): AppError {
  const path = request.url.split('?')[0];
  const methods = catalog.methodsFor(path);
  // Fastify answers HEAD wherever it answers GET.
  if (methods.includes('GET')) methods.push('HEAD');
  const allowed = methods.filter((m) => m !== request.method);
  if (allowed.length > 0) {
    return new AppError(
      'METHOD_NOT_ALLOWED',
      `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`,
      {
        headers: { Allow: allowed.join(', ') },
      },
    );
  }
  return new AppError('NOT_FOUND', `No route ${request.method} ${request.originalUrl.split('?')[0]}`);
}
