import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERRORS, type ErrorName } from '../errors.js';
import type { ErrorShape } from './route-policy.js';
import { validationError } from './validation.js';

/** Errors raised by the credential check and the rate limiter keep the error-guide shape everywhere. */
const CREDENTIAL_ERRORS: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'INVALID_API_KEY',
  'INSUFFICIENT_PERMISSIONS',
  'UNAUTHORIZED',
  'SESSION_EXPIRED',
  'FORBIDDEN',
  'RATE_LIMIT_EXCEEDED',
]);

/** How a path no route matches answers: like the routes of its resource (not-found.ts RouteCatalog). */
export interface ShapeOfUnmatched {
  errorShapeAt(path: string): ErrorShape;
}

/**
 * The body of an error answer (decisions.md "Error bodies"): what the matched route declares in its
 * `errorShape` (route-policy.ts), else what its neighbours declare.
 */
function errorShapeOf(
  request: FastifyRequest,
  path: string,
  error: ErrorName,
  unmatched: ShapeOfUnmatched,
): ErrorShape {
  if (CREDENTIAL_ERRORS.has(error)) return 'error-guide';
  const route = request.routeOptions;
  if (route.url === undefined) return unmatched.errorShapeAt(path);
  return route.config.errorShape ?? 'error-guide';
}

/** Turns anything thrown into an AppError; unknown errors become INTERNAL_ERROR and are logged. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return validationError(fastifyError.validation as never, fastifyError.validationContext ?? 'body');
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body exceeds the 64 KiB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json or application/json-patch+json');
    case 'FST_ERR_BAD_URL':
      return new AppError('INVALID_FORMAT', 'The request URL is not valid percent-encoded UTF-8', {
        details: { field: 'url', value: null },
      });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('INVALID_FORMAT', 'A path parameter is longer than 100 characters', {
        details: { field: 'url', value: null },
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('INVALID_JSON', 'The Content-Length header does not match the body');
  }
  // PostgreSQL data exceptions (class 22: NUL in text, a number out of a column's range, …) come from
  // values a schema let through; they are the caller's mistake, never a 500 and never SQL in the body.
  if (
    /^22[0-9A-Z]{3}$/.test(String(fastifyError.code)) &&
    typeof (error as { severity?: unknown }).severity === 'string'
  ) {
    request.log.warn({ err: error }, 'value rejected by the database');
    return new AppError(
      'INVALID_FORMAT',
      'A value in the request cannot be stored (out of range or an invalid character)',
      {
        details: { field: null, value: null },
      },
    );
  }
  // FST_ERR_CTP_INVALID_JSON_BODY: unparsable JSON, or a __proto__/constructor.prototype member (refused as poisoning).
  if (
    error instanceof SyntaxError ||
    fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
  ) {
    return new AppError('INVALID_JSON', 'The request body is not valid JSON');
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type');
  if (status >= 400 && status < 500)
    return new AppError('INVALID_FORMAT', 'The request is malformed', { details: { field: null, value: null } });
  request.log.error({ err: error }, 'unhandled error');
  return new AppError(
    'INTERNAL_ERROR',
    'Something went wrong on our side; it is safe to retry with the same idempotency key',
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer is about a moment (AppError.transient): an idempotency key must not keep it. */
    transientAnswer?: boolean;
  }
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: AppError,
  unmatched: ShapeOfUnmatched,
): FastifyReply {
  const spec = ERRORS[error.error];
  if (error.transient) request.transientAnswer = true;
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
  const path = request.originalUrl.split('?')[0];
  reply.code(spec.status);
  if (errorShapeOf(request, path, error.error, unmatched) === 'problem') {
    return reply.type('application/problem+json').send({
      type: `/docs#error-${error.error}`,
      title: spec.title,
      status: spec.status,
      detail: error.message,
      instance: path,
      code: spec.code,
      error: error.error,
      ...(error.details ? { details: error.details } : {}),
      ...error.extensions,
      requestId: request.id,
    });
  }
  return reply.type('application/json').send({
    error: error.error,
    message: error.message,
    code: spec.code,
    ...(error.details ? { details: error.details } : {}),
    timestamp: new Date().toISOString(),
    requestId: request.id,
  });
}
