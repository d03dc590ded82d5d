import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { canonicalJson } from '../lib/canonical-json.js';
import type { Clock } from '../lib/clock.js';
import { hmacHex, randomBase62 } from '../lib/crypto.js';
import type { App } from './fastify-app.js';
import { sendHookWhen } from './sync-hook.js';

/**
 * Idempotency keys (decisions.md, Idempotency) for every POST of a merchant caller (API key or
 * checkout token). Stored in the database, so they hold across instances and restarts:
 *
 * - preHandler claims (merchant, key) with one atomic insert … on conflict. Whoever inserts the
 *   row runs the request; everyone else reads the row once and gets the stored response
 *   (replayed byte for byte, `Idempotent-Replayed: true`), 422 for a different request, or 409
 *   while the first is still running on a live instance.
 * - "The same request" is a keyed fingerprint of method, path, key mode and the validated body in
 *   canonical form, with no card data in it (`fingerprintOf`): the stored row tells nothing of the card.
 * - onSend stores the response on the claim, sealed with the vault key, but only a decided one: 5xx,
 *   transient answers (AppError.transient: a payment still processing, a race to retry) and streams
 *   are not stored; the claim is let go so a retry with the same key runs again.
 * - A claim names the instance holding it (modules/instances): when that process dies, the claim is
 *   taken over within seconds. A payment submission leaves a recovery point on its claim (the
 *   payment it committed before calling the processor), so the retry resumes that payment and
 *   answers with its outcome instead of starting another (payments/resume-card-payment.ts); a refund
 *   request leaves the refund it committed, and its retry asks the processor again for that refund;
 *   a creation (`createOnce`) the object it created, which the retry answers with.
 * - Validation runs before preHandler, so rejected requests never claim a key.
 * - Keys live 24 hours; a sweep of the job loop deletes expired ones of every merchant
 *   (modules/idempotency, `sweeps`).
 * - The keys are stored by the idempotency module, handed to the hooks as a `ClaimStore` (app.ts).
 *
 * Requests without a key cost nothing; with a key, two small queries (claim + store, or
 * claim + read), and the fingerprint: one walk over the parsed body and an HMAC (two with a card number).
 */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** An in-flight claim this old is stuck even on a live instance, and may be taken over. */
export const STALE_CLAIM_SECONDS = 60;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** A request's claim on its idempotency key: the claim token proves it is still this request's. */
export interface Claim {
  merchantId: number;
  key: string;
  token: string;
}

export interface ClaimInput {
  merchantId: number;
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  token: string;
  /** The instance running the request (modules/instances). */
  holder: string;
  now: Date;
  expiresAt: Date;
  /** An in-flight claim of the same request claimed at or before this is taken over even from a live holder (stuck). */
  staleBefore: Date;
}

/**
 * What an interrupted earlier run of the request committed: a payment submission its payment, and the
 * card token it was to show; any other creating request the object it created (its kind follows from
 * the request's path, which the key's fingerprint holds).
 */
export type RecoveryPoint =
  | {
      paymentId: number;
      /** Sealed with the vault key. */
      sealedCardToken: string | null;
    }
  | { objectId: number };

/** A key as stored: the request that claimed it and, once decided, its sealed answer. */
export interface StoredKey {
  fingerprint: string | null;
  request_method: string;
  request_path: string;
  response_status: number | null;
  response_content_type: string | null;
  response_body: string | null;
}

/** Where the keys are kept: the idempotency module's store, composed in app.ts. */
export interface ClaimStore {
  /** The claim (and the recovery point of a claim taken over); undefined when the key is someone else's. */
  tryClaim(input: ClaimInput): Promise<{ recovery: RecoveryPoint | null } | undefined>;
  findKey(merchantId: number, key: string): Promise<StoredKey | undefined>;
  releaseClaim(claim: Claim): Promise<void>;
  storeResponse(claim: Claim, response: { status: number; contentType: string | null; body: string }): Promise<void>;
}

/** What the hooks need: the store, this instance's name, and the keys that seal answers and fingerprint requests. */
export interface IdempotencyDeps {
  claims: ClaimStore;
  clock: Clock;
  /** This process among the running instances (modules/instances): the holder its claims name. */
  instanceId: string;
  /** The vault (modules/cards): stored answers are sealed, card numbers fingerprinted with its keys. */
  vault: { seal(plaintext: string): string; unseal(sealed: string): string; fingerprint(pan: string): string };
  /** IDEMPOTENCY_FINGERPRINT_SECRET: the key of the request fingerprints. */
  fingerprintSecret: string;
}

/** A claim this request holds, and what an interrupted earlier run of the same request committed. */
export interface HeldClaim extends Claim {
  recovery?: { paymentId: number; cardToken: string | null } | { objectId: number };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds an idempotency claim it must complete or release. */
    idempotencyClaim?: HeldClaim;
  }
}

export function idempotencyHooks(app: App, deps: IdempotencyDeps): void {
  app.addHook('preHandler', (request, reply) => claimOrReplay(deps, request, reply));
  app.addHook(
    'onSend',
    sendHookWhen(
      (request) => request.idempotencyClaim !== undefined,
      (request, reply, payload) => finishClaim(deps, request, reply, payload),
    ),
  );
}

async function claimOrReplay(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | undefined> {
  const actor = request.actor;
  // Unauthenticated POSTs (login, callbacks) and control-panel users have no merchant scope to key on.
  if (request.method !== 'POST' || !actor || actor.kind === 'user') return;
  const key = idempotencyKeyOf(request);
  if (key === undefined) return;

  const path = request.url;
  const fingerprint = fingerprintOf(deps, request, path, actor.mode);
  const now = deps.clock.now();
  const token = randomBase62(24);
  const claimed = await deps.claims.tryClaim({
    merchantId: actor.merchantId,
    key,
    fingerprint,
    method: request.method,
    path,
    token,
    holder: deps.instanceId,
    now,
    expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_SECONDS * 1000),
    staleBefore: new Date(now.getTime() - STALE_CLAIM_SECONDS * 1000),
  });
  if (claimed) {
    request.idempotencyClaim = {
      merchantId: actor.merchantId,
      key,
      token,
      ...(claimed.recovery ? { recovery: unsealed(deps, claimed.recovery) } : {}),
    };
    return;
  }

  const existing = await deps.claims.findKey(actor.merchantId, key);
  if (existing && !sameRequest(existing, { fingerprint, method: request.method, path })) {
    throw new AppError(
      'IDEMPOTENCY_KEY_MISMATCH',
      `This idempotency key was already used for a different request (first: ${existing.request_method} ${existing.request_path}); use a new key for a new request`,
      { details: { idempotencyKey: key, firstRequest: `${existing.request_method} ${existing.request_path}` } },
    );
  }
  // No row: the first request just failed with a 5xx and released the key; a retry will run.
  if (!existing || existing.response_status === null) {
    throw new AppError(
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this idempotency key is still being processed; retry shortly',
      {
        details: { idempotencyKey: key },
        retryAfterSeconds: 1,
      },
    );
  }
  reply.code(existing.response_status).header('Idempotent-Replayed', 'true');
  if (existing.response_content_type) reply.header('content-type', existing.response_content_type);
  // Stored responses can hold secrets shown once (a cardToken, a checkout session token): kept sealed.
  return reply.send(existing.response_body ? deps.vault.unseal(existing.response_body) : '');
}

/**
 * "The same request" as a digest that holds no card data: an HMAC-SHA256 under a key of its own
 * (IDEMPOTENCY_FINGERPRINT_SECRET) of the method, the path with its query, the key mode (a live key never
 * receives a test-mode answer) and the body in canonical form (members sorted), in which every `cvv` is
 * left out and every card `number` is the card's keyed fingerprint (the vault's). So even with both keys,
 * a copy of the database tells nothing about a card that its `cards` row does not already tell.
 *
 * The body is the validated one, not the bytes received: unknown members already removed (they are
 * ignored, never stored) and defaults filled. It is what the route acts on, so two bodies that differ
 * only in spacing, member order or ignored members are the same request and replay, while a difference
 * in anything the route reads is another request (422); and it is already parsed, so the payment path
 * parses nothing twice. A retry that differs from the first only in its CVV is the same request too:
 * the CVV may not be kept in any form, not even to tell it apart.
 */
function fingerprintOf(deps: IdempotencyDeps, request: FastifyRequest, path: string, mode: string): string {
  const body = canonicalJson(request.body, (name, value) => {
    if (name === 'cvv') return undefined;
    return name === 'number' && typeof value === 'string' ? deps.vault.fingerprint(value) : value;
  });
  return hmacHex('sha256', deps.fingerprintSecret, `${request.method}\n${path}\n${mode}\n${body}`);
}

/**
 * A key stored before fingerprints were keyed has none left (migration 0023 removed the unkeyed digests):
 * until it expires it stands for any request with its method and path.
 */
function sameRequest(
  existing: { fingerprint: string | null; request_method: string; request_path: string },
  request: { fingerprint: string; method: string; path: string },
): boolean {
  if (existing.fingerprint !== null) return existing.fingerprint === request.fingerprint;
  return existing.request_method === request.method && existing.request_path === request.path;
}

/** The object an interrupted earlier run of this request created (not a payment: payments resume their own way). */
export function recoveredObjectId(claim: HeldClaim): number | undefined {
  return claim.recovery && 'objectId' in claim.recovery ? claim.recovery.objectId : undefined;
}

function unsealed(deps: IdempotencyDeps, point: RecoveryPoint): NonNullable<HeldClaim['recovery']> {
  if (!('paymentId' in point)) return point;
  return {
    paymentId: point.paymentId,
    cardToken: point.sealedCardToken ? deps.vault.unseal(point.sealedCardToken) : null,
  };
}

/** X-Idempotency-Key, or the IETF draft's Idempotency-Key; both at once must agree. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const first = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const primary = first('x-idempotency-key');
  const alternative = first('idempotency-key');
  if (primary !== undefined && alternative !== undefined && primary !== alternative) {
    throw new AppError('INVALID_FORMAT', 'X-Idempotency-Key and Idempotency-Key differ; send one of them', {
      details: { field: 'Idempotency-Key', value: alternative },
    });
  }
  const key = primary ?? alternative;
  if (key !== undefined && (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
    throw new AppError('INVALID_FORMAT', `X-Idempotency-Key must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, {
      details: { field: 'X-Idempotency-Key', value: key },
    });
  }
  return key;
}

async function finishClaim(
  deps: IdempotencyDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<void> {
  const claim = request.idempotencyClaim;
  if (!claim) return;
  // Cleared first: if anything below fails, the error response must not try to finish it again.
  request.idempotencyClaim = undefined;
  const body = storableBody(payload);
  try {
    if (reply.statusCode >= 500 || request.transientAnswer || body === undefined) {
      // Not an answer to keep: let the key go so a retry runs again (streams cannot be replayed).
      // A recovery point stays, so that retry resumes the payment or refund this run committed.
      await deps.claims.releaseClaim(claim);
      return;
    }
    const contentType = reply.getHeader('content-type');
    await deps.claims.storeResponse(claim, {
      status: reply.statusCode,
      contentType: contentType === undefined ? null : String(contentType),
      body: body === '' ? '' : deps.vault.seal(body),
    });
  } catch (error) {
    // The store went away mid-request (a restart, a failover). The response still goes out, but the
    // claim still names this live instance, so a retry would wait out STALE_CLAIM_SECONDS: let the key
    // go as soon as the store answers again. A payment's recovery point stays, so the retry resumes it.
    request.log.error({ err: error, idempotencyKey: claim.key }, 'could not store the idempotent response');
    releaseWhenStoreIsBack(deps, claim);
  }
}

const RELEASE_RETRY_MS = 1000;
/** A release not done within the stale-claim time-out is moot: the claim can be taken over by then. */
const RELEASE_GIVE_UP_MS = STALE_CLAIM_SECONDS * 1000;

function releaseWhenStoreIsBack(deps: IdempotencyDeps, claim: Claim, started = Date.now()): void {
  const timer = setTimeout(() => {
    deps.claims.releaseClaim(claim).catch(() => {
      if (Date.now() - started < RELEASE_GIVE_UP_MS) releaseWhenStoreIsBack(deps, claim, started);
    });
  }, RELEASE_RETRY_MS);
  timer.unref();
}

/** The serialized body as text; undefined for a stream, which cannot be replayed. */
function storableBody(payload: unknown): string | undefined {
  if (payload === undefined || payload === null) return '';
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined;
}
