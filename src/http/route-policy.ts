import type { RouteOptions } from 'fastify';

/** decisions.md "Error bodies": RFC 9457 problem records, or the error-guide shape. */
export type ErrorShape = 'problem' | 'error-guide';

/**
 * The access and answer policy of a route, declared by the route itself in its `config`, so renaming
 * a path cannot drop its rule:
 * - auth: which credential the route takes: a merchant API key (or the control panel's session in its
 *   place), a control-panel bearer token (or the panel's session), the panel's session only, or
 *   nothing ('none'). Every route declares it; the gateway refuses to start otherwise.
 * - paymentSubmission: moves money; refused for restricted merchants.
 * - signIn: checks a password or a single-use link; each attempt also spends the client address's
 *   sign-in quota (http/rate-limit.ts), whatever account it names.
 * - roles: on a session route, the roles of the merchant's users that may call it (default: every
 *   role; a viewer's changes are refused by the credential check). The module that owns the roles
 *   names them: `RoutePolicy<UserRole>`.
 * - checkoutToken: a checkout session token may call this route (docs/decisions.md "Checkout session
 *   token allow-list"), only for its own payment request, named by the path parameter `boundParam`.
 *   Tokens get 403 anywhere else.
 * - errorShape: the body of its error answers (default 'error-guide'). Credential errors and the rate
 *   limiter answer the error-guide shape everywhere.
 * - answers: error statuses the route answers beyond those its schema, credential and policy imply
 *   (a wrong password's 401, a spent link's 410): the OpenAPI document and the contract check list them.
 */
export interface RoutePolicy<Role extends string = string> {
  auth?: 'none' | 'api_key' | 'user' | 'session';
  paymentSubmission?: boolean;
  signIn?: boolean;
  roles?: readonly Role[];
  checkoutToken?: { boundParam: string };
  errorShape?: ErrorShape;
  answers?: readonly number[];
}

declare module 'fastify' {
  interface FastifyContextConfig extends RoutePolicy {}
}

/**
 * For a scope whose routes a third-party plugin adds (served files, the reference page), which
 * cannot declare a policy: they are public and answer the error-guide shape.
 */
export function declarePublic(route: RouteOptions): void {
  route.config = { auth: 'none', ...route.config };
}

/** Why the gateway must not start with this route, or undefined when its policy is complete. */
export function undeclaredPolicy(route: Pick<RouteOptions, 'method' | 'url' | 'config'>): string | undefined {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const config = route.config ?? {};
  if (config.auth === undefined)
    return `${methods.join(',')} ${route.url} declares no auth in its config ('none' if it is public)`;
  if (config.roles !== undefined && config.auth !== 'session')
    return `${methods.join(',')} ${route.url} declares roles, which only a session route checks`;
  if (config.checkoutToken !== undefined && config.auth !== 'api_key')
    return `${methods.join(',')} ${route.url} admits checkout tokens, which only an api_key route checks`;
  if (config.checkoutToken !== undefined && !route.url.split('/').includes(`:${config.checkoutToken.boundParam}`))
    return `${methods.join(',')} ${route.url} binds checkout tokens to :${config.checkoutToken.boundParam}, not in its path`;
  return undefined;
}
