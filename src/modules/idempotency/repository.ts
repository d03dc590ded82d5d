import { sql } from 'kysely';
import type { Claim, ClaimInput, RecoveryPoint } from '../../http/idempotency.js';
import type { Db } from '../../storage/db.js';
import { isLive } from '../instances/index.js';

/** Every query of idempotency keys (the HTTP hooks in http/idempotency.ts decide when to run them). */

/**
 * One statement, atomic across instances: a new key is inserted; an expired row is overwritten; an
 * unanswered claim of the same request is taken over when its holder let it go, died (no heartbeat
 * within its lease), or has been stuck since staleBefore. A takeover keeps the recovery point, which
 * comes back (null fields when there is none); undefined when the key is someone else's now.
 */
export async function tryClaim(db: Db, input: ClaimInput): Promise<{ recovery: RecoveryPoint | null } | undefined> {
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
    holder: input.holder,
  };
  const expired = sql<boolean>`idempotency_keys.expires_at <= ${now}`;
  const row = await db
    .insertInto('idempotency_keys')
    .values({ merchant_id: input.merchantId, key: input.key, ...fresh })
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'key'])
        .doUpdateSet({
          ...fresh,
          recovery_payment_id: sql`case when ${expired} then null else idempotency_keys.recovery_payment_id end`,
          recovery_secret: sql`case when ${expired} then null else idempotency_keys.recovery_secret end`,
          recovery_object_id: sql`case when ${expired} then null else idempotency_keys.recovery_object_id end`,
        })
        .where((eb) =>
          eb.or([
            expired,
            eb.and([
              eb('idempotency_keys.response_status', 'is', null),
              eb.or([
                eb('idempotency_keys.fingerprint', '=', input.fingerprint),
                // A claim from before keyed fingerprints (migration 0023): its method and path are all that is left.
                eb.and([
                  eb('idempotency_keys.fingerprint', 'is', null),
                  eb('idempotency_keys.request_method', '=', input.method),
                  eb('idempotency_keys.request_path', '=', input.path),
                ]),
              ]),
              eb.or([
                eb('idempotency_keys.holder', 'is', null),
                eb('idempotency_keys.claimed_at', '<=', input.staleBefore),
                eb.not(isLive(sql.ref('idempotency_keys.holder'))),
              ]),
            ]),
          ]),
        ),
    )
    .returning(['recovery_payment_id', 'recovery_secret', 'recovery_object_id'])
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.recovery_payment_id !== null)
    return { recovery: { paymentId: row.recovery_payment_id, sealedCardToken: row.recovery_secret } };
  return { recovery: row.recovery_object_id === null ? null : { objectId: row.recovery_object_id } };
}

export async function findKey(db: Db, merchantId: number, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .select([
      'fingerprint',
      'request_method',
      'request_path',
      'response_status',
      'response_content_type',
      'response_body',
    ])
    .where('merchant_id', '=', merchantId)
    .where('key', '=', key)
    .executeTakeFirst();
}

const hasRecoveryPoint = sql<boolean>`(recovery_payment_id is not null or recovery_object_id is not null)`;

/** Records, in the transaction that created it, the object this claim's request created: its recovery point. */
export async function recordRecoveryPoint(db: Db, claim: Claim, objectId: number): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ recovery_object_id: objectId })
    .where('merchant_id', '=', claim.merchantId)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .execute();
}

/**
 * Gives the key up without an answer (the request failed on our side, or its answer was transient), so
 * a retry runs again. A claim with a recovery point stays, holder-less, so that retry resumes it.
 */
export async function releaseClaim(db: Db, claim: Claim): Promise<void> {
  await db
    .with('kept', (qb) =>
      qb
        .updateTable('idempotency_keys')
        .set({ holder: null })
        .where('merchant_id', '=', claim.merchantId)
        .where('key', '=', claim.key)
        .where('claim_token', '=', claim.token)
        .where(hasRecoveryPoint),
    )
    .deleteFrom('idempotency_keys')
    .where('merchant_id', '=', claim.merchantId)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .where(sql<boolean>`not (${hasRecoveryPoint})`)
    .execute();
}

/** Stores the final response on the claim. */
export async function storeResponse(
  db: Db,
  claim: Claim,
  response: { status: number; contentType: string | null; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      response_status: response.status,
      response_content_type: response.contentType,
      response_body: response.body,
    })
    .where('merchant_id', '=', claim.merchantId)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .execute();
}

/**
 * Deletes up to `batch` expired keys of any merchant, oldest first; returns how many. Keys another instance
 * is deleting (or a request is claiming afresh) are skipped, not waited for; a key claimed afresh since it
 * was picked is no longer expired and stays.
 */
export async function deleteExpiredKeys(db: Db, now: Date, batch: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', now)
    .where((eb) =>
      eb(
        eb.refTuple('merchant_id', 'key'),
        'in',
        eb
          .selectFrom('idempotency_keys')
          .select(['merchant_id', 'key'])
          .where('expires_at', '<=', now)
          .orderBy('expires_at')
          .limit(batch)
          .forUpdate()
          .skipLocked()
          .$asTuple('merchant_id', 'key'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
