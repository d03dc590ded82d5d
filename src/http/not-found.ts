import type { FastifyContextConfig, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../errors.js';
import { undeclaredPolicy, type ErrorShape } from './route-policy.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route as declared (app.ts); tests read the routes' policies from it. */
    routeCatalog: RouteCatalog;
  }
}

/** A registered route as its policy declares it. */
export interface DeclaredRoute {
  method: string;
  url: string;
  config: FastifyContextConfig;
}

/**
 * Every registered route with its declared policy (HEAD routes take their GET's; OPTIONS routes answer
 * preflights, in the CORS hook before any credential check, cors.ts): which methods a path
 * answers, to tell a 405 from a 404, and how a path no route matches answers errors, like the routes
 * of its resource (first path segment).
 */
export class RouteCatalog {
  // The route's own options: a scope's onRoute hook may complete its config after this one has run.
  private readonly entries: { method: string; pattern: RegExp; resource: string; route: RouteOptions }[] = [];

  add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(
      `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`,
    );
    for (const method of methods) {
      if (method !== 'HEAD' && method !== 'OPTIONS')
        this.entries.push({ method, pattern, resource: resourceOf(route.url), route });
    }
  }

  methodsFor(path: string): string[] {
    return [...new Set(this.entries.filter((e) => e.pattern.test(path)).map((e) => e.method))];
  }

  declared(): DeclaredRoute[] {
    return this.entries.map(({ method, route }) => ({ method, url: route.url, config: route.config ?? {} }));
  }

  /** The error shape the routes of this path's resource declare (they all agree: see `assertComplete`). */
  errorShapeAt(path: string): ErrorShape {
    const resource = resourceOf(path);
    const neighbour = this.entries.find((entry) => entry.resource === resource);
    return neighbour?.route.config?.errorShape ?? 'error-guide';
  }

  /** Throws when a route's policy is incomplete, or when routes of one resource answer different error shapes. */
  assertComplete(): void {
    const problems: string[] = [];
    const shapes = new Map<string, { shape: ErrorShape; url: string }>();
    for (const { route, resource } of this.entries) {
      const why = undeclaredPolicy(route);
      if (why) problems.push(why);
      const shape = route.config?.errorShape ?? 'error-guide';
      const first = shapes.get(resource);
      if (!first) shapes.set(resource, { shape, url: route.url });
      else if (first.shape !== shape)
        problems.push(`${route.url} answers ${shape} errors but ${first.url} answers ${first.shape}`);
    }
    if (problems.length > 0) throw new Error(`Route policies are incomplete:\n${[...new Set(problems)].join('\n')}`);
  }
}

/** The first path segment, without the /v2 prefix. */
const resourceOf = (path: string) => path.replace(/^\/v2(?=\/|$)/, '').split(/[/?]/)[1] ?? '';

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
