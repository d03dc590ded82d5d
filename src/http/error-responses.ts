import { Type, type TSchema } from '@sinclair/typebox';
import { ERRORS } from '../errors.js';
import type { RoutePolicy } from './route-policy.js';
import { isProbe } from './versioning.js';

/**
 * The error answers every route can give, derived from its schema and config rather than listed by
 * hand in each route: the OpenAPI document (openapi.ts) and the contract check of the tests
 * (contract-check.ts) both read them from here, so the document cannot drift from what is checked.
 */

const ErrorName = Type.Union(Object.keys(ERRORS).map((name) => Type.Literal(name)));
const Details = Type.Object({}, { additionalProperties: true });

/** decisions.md, Error bodies: the error-guide shape. */
export const ErrorGuide = Type.Object(
  {
    error: ErrorName,
    message: Type.String(),
    code: Type.String(),
    details: Type.Optional(Details),
    timestamp: Type.String({ format: 'date-time' }),
    requestId: Type.String(),
  },
  { $id: 'ErrorGuide' },
);

/** decisions.md, Error bodies: the RFC 9457 problem record of /payments and /customers. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    code: Type.Optional(Type.String()),
    error: Type.Optional(ErrorName),
    details: Type.Optional(Details),
    requestId: Type.Optional(Type.String()),
    paymentId: Type.Optional(Type.Integer()),
  },
  { $id: 'Problem', description: 'RFC 9457 problem record' },
);

const WHY: Record<number, string> = {
  400: 'Validation error (VALIDATION_ERROR, INVALID_FORMAT, INVALID_JSON, UNSUPPORTED_API_VERSION, …)',
  401: 'Missing or invalid credentials',
  402: 'Payment declined (CARD_DECLINED, PAYMENT_DECLINED, THREEDS_FAILED, UPI_TRANSACTION_FAILED); the failed payment is stored and named by paymentId',
  403: 'Not permitted (INSUFFICIENT_PERMISSIONS, FORBIDDEN, HTTPS_REQUIRED in production)',
  404: 'Not found',
  409: 'Conflict with the resource state or an idempotency key in flight',
  410: 'The e-mailed link is no longer valid (INVITATION_INVALID, LINK_INVALID: unknown, expired, used or revoked)',
  413: 'Body over 64 KiB',
  415: 'Unsupported content type',
  422: 'Idempotency key reused with a different request',
  429: 'Rate limited or account locked (Retry-After)',
  500: 'Internal error',
  502: 'The processor failed (PROCESSOR_UNAVAILABLE); the failed payment is stored and named by paymentId',
  503: 'Overloaded or shutting down (SERVICE_UNAVAILABLE, Retry-After); /readyz also when storage is unreachable',
};

export interface RouteSchema {
  body?: unknown;
  params?: unknown;
  querystring?: unknown;
  response?: unknown;
}

interface RouteShape {
  method: string;
  url: string;
  schema?: RouteSchema;
  config?: Pick<RoutePolicy, 'auth' | 'paymentSubmission' | 'errorShape' | 'answers'>;
}

/** Every error status the route can answer, sorted. */
export function errorStatuses(route: RouteShape): number[] {
  const statuses = new Set<number>([500, 503]);
  // Probes answer whatever X-API-Version says, over plain HTTP and unlimited (versioning.ts, transport.ts).
  if (!isProbe(route.url)) [400, 403, 429].forEach((s) => statuses.add(s));
  const { schema = {}, config = {} } = route;
  const auth = config.auth ?? 'none';
  // Every POST, PUT, PATCH and DELETE may carry a body (even one its schema does not describe), so its parser can refuse it.
  if (schema.body || ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method))
    [400, 413, 415].forEach((s) => statuses.add(s));
  if (auth !== 'none') [401, 403].forEach((s) => statuses.add(s));
  // A record named by the path, or by the body (a customer id), may not exist for this caller.
  if (schema.params || schema.body) statuses.add(404);
  // A change can conflict with the record's state; a POST's idempotency key can be in flight or reused.
  if (['POST', 'PUT', 'PATCH'].includes(route.method) && auth !== 'none') statuses.add(409);
  if (route.method === 'POST' && auth !== 'none') statuses.add(422);
  if (config.paymentSubmission) [402, 502].forEach((s) => statuses.add(s));
  for (const status of route.config?.answers ?? []) statuses.add(status);
  for (const code of Object.keys((schema.response as object | undefined) ?? {}))
    if (Number(code) >= 400) statuses.add(Number(code));
  return [...statuses].sort();
}

/** Every status the route can answer, its successes included. */
export function declaredStatuses(route: RouteShape): Set<number> {
  return new Set([
    ...Object.keys((route.schema?.response as object | undefined) ?? {}).map(Number),
    ...errorStatuses(route),
  ]);
}

/** The OpenAPI responses of the error statuses, pointing at the shared body schemas. */
export function errorResponses(route: RouteShape): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const status of errorStatuses(route)) {
    // Credential errors and 429 keep the error-guide shape on every path (decisions.md, Error bodies).
    const credential = status === 401 || status === 403 || status === 429;
    const problem = !credential && route.config?.errorShape === 'problem';
    const [type, schema]: [string, TSchema] = problem
      ? ['application/problem+json', Problem]
      : ['application/json', ErrorGuide];
    responses[status] = { description: WHY[status], content: { [type]: { schema: Type.Ref(schema) } } };
  }
  return responses;
}
