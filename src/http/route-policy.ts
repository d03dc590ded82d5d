import type { ErrorName } from '../errors.js';
import { CARD_PROCESSORS } from '../processors/registry.js';
import type { UserRole } from './actors.js';

/**
 * The access and answer policy of every route, in one place.
 * - auth: which credential the route takes ('none' when absent): a merchant API key (or the control
 *   panel's session in its place), a control-panel bearer token (or the panel's session), the panel's
 *   session only, or nothing.
 * - paymentSubmission: moves money; refused for restricted merchants.
 * - signIn: checks a password or a single-use link; each attempt also spends the client address's
 *   sign-in quota (http/rate-limit.ts), whatever account it names.
 * - checkout token: only the routes of CHECKOUT_TOKEN_ROUTES, for their own payment request.
 * - roles: the control-panel routes only some roles of the merchant's users may call, SESSION_ROLES.
 * - error shape: by resource, ERROR_SHAPES.
 * Routes declare auth, paymentSubmission and signIn in their `config`; the lists below are the rest.
 */
export interface RoutePolicy {
  auth?: 'none' | 'api_key' | 'user' | 'session';
  paymentSubmission?: boolean;
  signIn?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig extends RoutePolicy {}
}

/**
 * The routes a checkout session token may call (docs/decisions.md "Checkout session token allow-list"),
 * each with the path parameter that must equal the token's payment request. Anything else is a 403.
 */
export const CHECKOUT_TOKEN_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST'; url: string; boundParam: string }> = [
  { method: 'GET', url: '/payment-requests/:id', boundParam: 'id' },
  { method: 'POST', url: '/payments/h2h/:id', boundParam: 'id' },
  ...Object.keys(CARD_PROCESSORS).map((processor) => ({
    method: 'POST' as const,
    url: `/payments/creditCard/${processor}/:id`,
    boundParam: 'id',
  })),
  { method: 'POST', url: '/payments/wallet/:id', boundParam: 'id' },
];

/** The path parameter binding a checkout token on this route, or undefined when tokens may not call it. */
export function checkoutBoundParam(method: string, url: string | undefined): string | undefined {
  // Fastify answers HEAD wherever it answers GET, with the GET route's policy.
  const asMethod = method === 'HEAD' ? 'GET' : method;
  return CHECKOUT_TOKEN_ROUTES.find((route) => route.method === asMethod && route.url === url)?.boundParam;
}

/**
 * Session routes only some roles may call (docs/decisions.md "Team"); the others' sessions get 403
 * INSUFFICIENT_PERMISSIONS. Session routes not listed are open to every role (a viewer's changes are
 * refused by the credential check).
 */
const SESSION_ROLES: Partial<Record<string, readonly UserRole[]>> = {
  'POST /team/invitations': ['owner'],
  'DELETE /team/invitations/:invitationId': ['owner'],
  'PATCH /team/members/:userId': ['owner'],
  'DELETE /team/members/:userId': ['owner'],
  'POST /jobs/:jobId/retry': ['owner', 'developer'],
};

/** The roles allowed on this session route, or undefined when every role is. */
export const sessionRolesOf = (method: string, url: string | undefined): readonly UserRole[] | undefined =>
  SESSION_ROLES[`${method} ${url}`];

export type ErrorShape = 'problem' | 'error-guide';

/**
 * The error body per resource (the first path segment), decisions.md "Error bodies": the payment and
 * customer endpoints answer RFC 9457 problem records, everything else the error-guide shape. By resource,
 * so a path no route matches (a 404 under /payments) answers like its neighbours.
 */
const ERROR_SHAPES: Partial<Record<string, ErrorShape>> = { payments: 'problem', customers: 'problem' };

/** Errors raised by the credential check and the rate limiter keep the error-guide shape everywhere. */
const CREDENTIAL_ERRORS = new Set<ErrorName>([
  'INVALID_API_KEY',
  'INSUFFICIENT_PERMISSIONS',
  'UNAUTHORIZED',
  'SESSION_EXPIRED',
  'FORBIDDEN',
  'RATE_LIMIT_EXCEEDED',
]);

export function errorShapeOf(path: string, error: ErrorName): ErrorShape {
  if (CREDENTIAL_ERRORS.has(error)) return 'error-guide';
  const resource = path.replace(/^\/v2(?=\/|$)/, '').split(/[/?]/)[1] ?? '';
  return ERROR_SHAPES[resource] ?? 'error-guide';
}
