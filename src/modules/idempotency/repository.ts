import type { Db } from '../../storage/db.js';

/** Every query of idempotency keys (the HTTP hooks in http/idempotency.ts decide when to run them). */

export interface ClaimInput {
  merchantId: number;
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  token: string;
  now: Date;
  expiresAt: Date;
  /** An in-flight claim of the same request claimed at or before this is taken over. */
  staleBefore: Date;
}

/**
 * One statement, atomic across instances: a new key is inserted; an expired row, or a stale
 * in-flight claim of the same request, is overwritten; any other existing row is left alone
 * and nothing comes back.
 */
export async function tryClaim(db: Db, input: ClaimInput): Promise<boolean> {
  const { now } = input;
  const fresh = {
    fingerprint: input.fingerprint,
    request_method: input.method,
    request_path: input.path,
    claim_token: input.token,
    claimed_at: now,
    expires_at: input.expiresAt,
    response_status: null,
    response_content_type: null,
    response_body: null,
  };
  const row = await db
    .insertInto('idempotency_keys')
    .values({ merchant_id: input.merchantId, key: input.key, ...fresh })
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'key'])
        .doUpdateSet(fresh)
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.expires_at', '<=', now),
            eb.and([
              eb('idempotency_keys.response_status', 'is', null),
              eb('idempotency_keys.claimed_at', '<=', input.staleBefore),
              eb('idempotency_keys.fingerprint', '=', input.fingerprint),
            ]),
          ]),
        ),
    )
    .returning('claim_token')
    .executeTakeFirst();
  return row !== undefined;
}

export async function findKey(db: Db, merchantId: number, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'request_method', 'request_path', 'response_status', 'response_content_type', 'response_body'])
    .where('merchant_id', '=', merchantId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export interface Claim {
  merchantId: number;
  key: string;
  token: string;
}

/** Gives the key up (the request failed on our side and may run again). */
export async function releaseClaim(db: Db, claim: Claim): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('merchant_id', '=', claim.merchantId)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .execute();
}

/**
 * Stores the final response on the claim. Piggy-backed cleanup: the same statement deletes up to
 * `sweepBatch` of the merchant's expired keys, so the table holds about a day of keys without a
 * background job (and no extra round trip).
 */
export async function storeResponse(
  db: Db,
  claim: Claim,
  response: { status: number; contentType: string | null; body: string },
  now: Date,
  sweepBatch: number,
): Promise<void> {
  await db
    .with('swept', (qb) =>
      qb
        .deleteFrom('idempotency_keys')
        .where('merchant_id', '=', claim.merchantId)
        .where('expires_at', '<=', now)
        .where('key', 'in', (sub) =>
          sub.selectFrom('idempotency_keys').select('key').where('merchant_id', '=', claim.merchantId).where('expires_at', '<=', now).limit(sweepBatch),
        ),
    )
    .updateTable('idempotency_keys')
    .set({ response_status: response.status, response_content_type: response.contentType, response_body: response.body })
    .where('merchant_id', '=', claim.merchantId)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .execute();
}
