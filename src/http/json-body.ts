import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received (signature checks and idempotency fingerprints need the bytes). */
    rawBody?: string;
  }
}

/**
 * JSON bodies arrive as application/json or, per the spec, application/json-patch+json.
 * An empty body parses to undefined, so a route without required fields accepts it and one
 * with required fields answers VALIDATION_ERROR instead of a parser error.
 */
export function registerJsonParsers(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    ['application/json', 'application/json-patch+json'],
    { parseAs: 'string' },
    (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      request.rawBody = text;
      if (text.trim() === '') return done(null, undefined);
      parse(request, text, done);
    },
  );
}
