import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { verifyApiKey, type KeyCache } from '../modules/api-keys/index.js';
import type { AccessTokens } from '../modules/auth/jwt.js';
import type { Db } from '../storage/db.js';
import type { MerchantScope } from '../lib/scope.js';
import { checkoutBoundParam, type RoutePolicy } from './route-policy.js';
import type { MerchantStatus } from '../storage/schema.js';
import type { Actor, ApiKeyActor, CheckoutActor, CheckoutTokenVerifier, UserActor } from './actors.js';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
  }
}

export interface CredentialDeps {
  db: Db;
  tokens: AccessTokens;
  checkoutVerifier: CheckoutTokenVerifier;
  keyCache: KeyCache;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

export function authenticate(deps: CredentialDeps) {
  return async (request: FastifyRequest): Promise<void> => {
    const config = request.routeOptions.config;
    if (config.auth === 'user') {
      request.actor = await bearerUser(deps, request);
    } else if (config.auth === 'api_key') {
      request.actor = await merchantCaller(deps, request, config);
    }
  };
}

async function bearerUser(deps: CredentialDeps, request: FastifyRequest): Promise<UserActor> {
  const authorization = header(request, 'authorization') ?? '';
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
  if (key === undefined) {
    if (/^Bearer\s/i.test(header(request, 'authorization') ?? '')) {
      throw new AppError(
        'INVALID_API_KEY',
        'Bearer authentication for the payment API was removed on 2024-06-01; send your API key in the X-API-Key header',
      );
    }
    throw new AppError('INVALID_API_KEY', 'The X-API-Key header is missing');
  }
  const found = await verifyApiKey(deps, { key });
  if (!found) throw new AppError('INVALID_API_KEY', 'The API key is invalid, revoked or was replaced');
  assertMerchantMayCall(found.merchantStatus, config);
  return { kind: 'api_key', ...found };
}

async function checkoutCaller(
  deps: CredentialDeps,
  request: FastifyRequest,
  config: RoutePolicy,
  token: string,
): Promise<CheckoutActor> {
  const actor = token.length <= 256 ? await deps.checkoutVerifier.verify(token) : null;
  if (!actor) throw new AppError('UNAUTHORIZED', 'The checkout session token is invalid or has expired');
  // Only the routes of the allow-list (route-policy.ts), and only for the token's own payment request.
  const param = checkoutBoundParam(request.method, request.routeOptions.url);
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

function assertMerchantMayCall(status: MerchantStatus, config: RoutePolicy): void {
  if (status === 'suspended') {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'This merchant account is suspended; contact support');
  }
  if (status === 'restricted' && config.paymentSubmission) {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'This merchant account is restricted and cannot submit payments');
  }
}

/** The calling merchant API key, for handlers that only API keys may reach. */
export function requireMerchant(request: FastifyRequest): ApiKeyActor | CheckoutActor {
  const actor = request.actor;
  if (!actor || actor.kind === 'user') throw new AppError('INVALID_API_KEY', 'An API key is required');
  return actor;
}

/** The merchant and mode the calling key or token acts for. */
export function merchantScopeOf(request: FastifyRequest): MerchantScope {
  const actor = requireMerchant(request);
  return { merchantId: actor.merchantId, livemode: actor.mode === 'live' };
}
