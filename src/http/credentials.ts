import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { safeEqual } from '../lib/crypto.js';
import type { MerchantScope } from '../lib/scope.js';
import type { RoutePolicy } from './route-policy.js';
import type { MerchantStatus } from './actors.js';
import type { Config } from '../config.js';
import type {
  AccessTokenVerifier,
  Actor,
  ApiKeyActor,
  ApiKeyVerifier,
  CheckoutActor,
  CheckoutTokenVerifier,
  PanelActor,
  PanelSession,
  PanelSessionVerifier,
  UserActor,
} from './actors.js';
import {
  assertSameOrigin,
  changesState,
  clearedPanelCookie,
  CSRF_HEADER,
  PANEL_MODE_HEADER,
  panelCookieOf,
} from './panel-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
    /** The control-panel session the request came with, when it came with one. */
    panelSession?: PanelSession;
  }
}

export interface CredentialDeps {
  apiKeys: ApiKeyVerifier;
  tokens: AccessTokenVerifier;
  checkoutVerifier: CheckoutTokenVerifier;
  panelSessions: PanelSessionVerifier;
  config: Config;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The signed-in panel session of a route with `auth: 'session'` (which roles may call it: its `roles`). */
export function panelSessionOf(request: FastifyRequest): PanelSession {
  const session = request.panelSession;
  if (!session) throw new AppError('UNAUTHORIZED', 'Sign in to the control panel first');
  return session;
}

export function authenticate(deps: CredentialDeps) {
  return async (request: FastifyRequest): Promise<void> => {
    const config = request.routeOptions.config;
    if (config.auth === 'user') {
      request.actor = await controlPanelUser(deps, request);
    } else if (config.auth === 'api_key') {
      request.actor = await merchantCaller(deps, request, config);
    } else if (config.auth === 'session') {
      const actor = panelCaller(request, await panelSession(deps, request));
      const roles = config.roles;
      if (roles && !roles.includes(actor.role)) {
        throw new AppError(
          'INSUFFICIENT_PERMISSIONS',
          `Only ${roles.map((role) => `${role}s`).join(' or ')} of the merchant may do this`,
        );
      }
      request.actor = actor;
    }
  };
}

/** The spec's bearer access token; from a browser without one, the control-panel session. */
async function controlPanelUser(deps: CredentialDeps, request: FastifyRequest): Promise<UserActor> {
  const authorization = header(request, 'authorization');
  if (authorization === undefined && panelCookieOf(request, deps.config) !== undefined) {
    const session = await panelSession(deps, request);
    return { kind: 'user', merchantId: session.merchantId, userId: session.userId };
  }
  return bearerUser(deps, authorization ?? '');
}

async function bearerUser(deps: CredentialDeps, authorization: string): Promise<UserActor> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  const claims = match ? await deps.tokens.verify(match[1]) : null;
  if (!claims) {
    throw new AppError(
      'UNAUTHORIZED',
      'A valid control-panel access token is required: Authorization: Bearer <accessToken> from POST /auth/login',
    );
  }
  return { kind: 'user', ...claims };
}

async function merchantCaller(deps: CredentialDeps, request: FastifyRequest, config: RoutePolicy): Promise<Actor> {
  // Spec rule 4: with both headers the checkout token wins and the call is scoped.
  const checkoutToken = header(request, 'x-checkout-token');
  if (checkoutToken !== undefined) return checkoutCaller(deps, request, config, checkoutToken);

  const key = header(request, 'x-api-key');
  if (key === undefined && panelCookieOf(request, deps.config) !== undefined) {
    const actor = panelCaller(request, await panelSession(deps, request));
    assertMerchantMayCall(actor.merchantStatus, config);
    if (actor.role === 'viewer' && changesState(request)) {
      throw new AppError('INSUFFICIENT_PERMISSIONS', 'A viewer can read but not change anything');
    }
    return actor;
  }
  if (key === undefined) {
    if (/^Bearer\s/i.test(header(request, 'authorization') ?? '')) {
      throw new AppError(
        'INVALID_API_KEY',
        'Bearer authentication for the payment API was removed on 2024-06-01; send your API key in the X-API-Key header',
      );
    }
    throw new AppError('INVALID_API_KEY', 'The X-API-Key header is missing');
  }
  const found = await deps.apiKeys.verify(key);
  if (!found) throw new AppError('INVALID_API_KEY', invalidKeyMessage(key));
  assertMerchantMayCall(found.merchantStatus, config);
  return { kind: 'api_key', ...found };
}

/** A checkout session token in the key's header is a common first mistake: say where it belongs. */
const invalidKeyMessage = (key: string) =>
  key.startsWith('cst_')
    ? 'This is a checkout session token (cst_…), not an API key: it belongs in the X-Checkout-Token header'
    : 'The API key is invalid, revoked or was replaced';

async function checkoutCaller(
  deps: CredentialDeps,
  request: FastifyRequest,
  config: RoutePolicy,
  token: string,
): Promise<CheckoutActor> {
  const actor = token.length <= 256 ? await deps.checkoutVerifier.verify(token) : null;
  if (!actor) throw new AppError('UNAUTHORIZED', 'The checkout session token is invalid or has expired');
  // Only the routes that admit checkout tokens, and only for the token's own payment request.
  const param = config.checkoutToken?.boundParam;
  const bound = param && (request.params as Record<string, string>)[param];
  if (bound === undefined || String(bound) !== String(actor.paymentRequestId)) {
    throw new AppError(
      'FORBIDDEN',
      'A checkout session token may only be used for its own payment request on checkout routes',
    );
  }
  assertMerchantMayCall(actor.merchantStatus, config);
  return actor;
}

/**
 * The session the panel's cookie names, checked like a form post would be: a change needs the session's
 * CSRF token (X-CSRF-Token) and, from a browser, the gateway's own Origin. A cookie naming no live
 * session is SESSION_EXPIRED (the panel goes back to sign-in and says why) and is cleared.
 */
async function panelSession(deps: CredentialDeps, request: FastifyRequest): Promise<PanelSession> {
  const token = panelCookieOf(request, deps.config);
  if (token === undefined) throw new AppError('UNAUTHORIZED', 'Sign in to the control panel first');
  const session = token.length <= 256 ? await deps.panelSessions.verify(token) : null;
  if (!session) {
    throw new AppError('SESSION_EXPIRED', 'Your control-panel session has ended or expired; sign in again', {
      headers: { 'Set-Cookie': clearedPanelCookie(deps.config) },
    });
  }
  if (changesState(request)) {
    assertSameOrigin(request, deps.config);
    if (!safeEqual(header(request, CSRF_HEADER) ?? '', session.csrfToken)) {
      throw new AppError('FORBIDDEN', 'The X-CSRF-Token header is missing or does not match this session');
    }
  }
  request.panelSession = session;
  return session;
}

/** The panel acting for its merchant in the mode it chose for this request (X-Panel-Mode, default test). */
function panelCaller(request: FastifyRequest, session: PanelSession): PanelActor {
  const mode = header(request, PANEL_MODE_HEADER) ?? 'test';
  if (mode !== 'test' && mode !== 'live') {
    throw new AppError('INVALID_FORMAT', 'X-Panel-Mode must be "test" or "live"', {
      details: { field: 'X-Panel-Mode', value: mode },
    });
  }
  const { merchantId, merchantStatus, userId, role, sessionId } = session;
  return { kind: 'panel', merchantId, merchantStatus, mode, userId, role, sessionId };
}

function assertMerchantMayCall(status: MerchantStatus, config: RoutePolicy): void {
  if (status === 'suspended') {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'This merchant account is suspended; contact support');
  }
  if (status === 'restricted' && config.paymentSubmission) {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'This merchant account is restricted and cannot submit payments');
  }
}

/** The calling merchant credential (API key, checkout token or panel session), for handlers that only those may reach. */
export function requireMerchant(request: FastifyRequest): ApiKeyActor | CheckoutActor | PanelActor {
  const actor = request.actor;
  if (!actor || actor.kind === 'user') throw new AppError('INVALID_API_KEY', 'An API key is required');
  return actor;
}

/** The merchant and mode the calling key or token acts for. */
export function merchantScopeOf(request: FastifyRequest): MerchantScope {
  const actor = requireMerchant(request);
  return { merchantId: actor.merchantId, livemode: actor.mode === 'live' };
}
