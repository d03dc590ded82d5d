import { sql } from 'kysely';
import type { Db } from '../../storage/db.js';
import type { MerchantSettingsTable } from './tables.js';
import type { FreePlaces } from './endpoint-places.js';
import { endpointOf } from './sender.js';

/** A merchant and mode: settings, events and deliveries are confined to one. */
export interface MerchantScope {
  merchantId: number;
  livemode: boolean;
}

// ---- settings

/** Every merchant and mode has settings (and a secret) from its first use; creating them twice is a no-op. */
export async function ensureSettingsRow(db: Db, scope: MerchantScope, sealedSecret: string, now: Date) {
  await db
    .insertInto('merchant_settings')
    .values({ merchant_id: scope.merchantId, livemode: scope.livemode, webhook_secret: sealedSecret, updated_at: now })
    .onConflict((oc) => oc.columns(['merchant_id', 'livemode']).doNothing())
    .execute();
}

export function findSettingsRow(db: Db, scope: MerchantScope) {
  return db
    .selectFrom('merchant_settings')
    .selectAll()
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
}

/** The checkout-facing settings of the merchant and mode of a payment request, if it has settings. */
export function findCheckoutSettings(db: Db, paymentRequestId: number) {
  return db
    .selectFrom('payment_requests as r')
    .innerJoin('merchant_settings as s', (join) =>
      join.onRef('s.merchant_id', '=', 'r.merchant_id').onRef('s.livemode', '=', 'r.livemode'),
    )
    .select(['s.checkout_origins', 's.wallet_enabled', 's.business_name'])
    .where('r.id', '=', paymentRequestId)
    .executeTakeFirst();
}

export type SettingsChanges = Partial<
  Pick<MerchantSettingsTable, 'business_name' | 'notify_url'> & {
    wallet_enabled: boolean;
    retry_decline_codes: string[];
    endpoint_disabled_at: Date | null;
    endpoint_disabled_reason: string | null;
    checkout_origins: string;
    event_types: string | null;
  }
>;

export async function updateSettingsRow(db: Db, scope: MerchantScope, changes: SettingsChanges, now: Date) {
  await db
    .updateTable('merchant_settings')
    .set({ ...changes, updated_at: now })
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .execute();
}

/** The current secret becomes the previous one (signing until `previousValidUntil`); the new one is current. */
export async function replaceSecret(
  db: Db,
  scope: MerchantScope,
  sealedSecret: string,
  previousValidUntil: Date,
  now: Date,
) {
  await db
    .updateTable('merchant_settings')
    .set((eb) => ({
      previous_webhook_secret: eb.ref('webhook_secret'),
      previous_valid_until: previousValidUntil,
      webhook_secret: sealedSecret,
      updated_at: now,
    }))
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .execute();
}

/** A 410 or three days of failures: nothing more goes to the merchant's default URL until it is set again. */
export async function disableEndpoint(db: Db, scope: MerchantScope, url: string, reason: string, now: Date) {
  const row = await db
    .updateTable('merchant_settings')
    .set({ endpoint_disabled_at: now, endpoint_disabled_reason: reason })
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('notify_url', '=', url)
    .where('endpoint_disabled_at', 'is', null)
    .returning('merchant_id')
    .executeTakeFirst();
  return row !== undefined;
}

// ---- outbox → deliveries

/**
 * Claims outbox events not yet handed to delivery, oldest first, by deleting their queue rows (SKIP
 * LOCKED: concurrent relays take different events); the caller's transaction writes their deliveries,
 * whose ids then keep the events' order (one payment's events are sent in delivery-id order).
 */
export async function claimUnqueuedEvents(db: Db, limit: number) {
  const claimed = await db
    .with('claimed', (qb) =>
      qb
        .deleteFrom('outbox_queue')
        .where('event_id', 'in', (sub) =>
          sub.selectFrom('outbox_queue').select('event_id').orderBy('event_id').limit(limit).forUpdate().skipLocked(),
        )
        .returning('event_id'),
    )
    .selectFrom('outbox_events as e')
    .innerJoin('claimed', 'claimed.event_id', 'e.id')
    .select(['e.id', 'e.merchant_id', 'e.livemode', 'e.type', 'e.payload'])
    .execute();
  // A join answers in whatever order PostgreSQL built it, not the claim's.
  return claimed.sort((a, b) => a.id - b.id);
}

/** notifyUrl given with each payment (payments.options), by payment id. */
export async function paymentNotifyUrls(db: Db, paymentIds: number[]): Promise<Map<number, string>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('payments')
    .select(['id', sql<string | null>`options->>'notifyUrl'`.as('notify_url')])
    .where('id', 'in', paymentIds)
    .execute();
  return new Map(rows.filter((r) => r.notify_url).map((r) => [r.id, r.notify_url!]));
}

/** notifyUrl given with each payment request, by request id: for events about a request rather than a payment. */
export async function requestNotifyUrls(db: Db, requestIds: number[]): Promise<Map<number, string>> {
  if (requestIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('payment_requests')
    .select(['id', 'notify_url'])
    .where('id', 'in', requestIds)
    .where('notify_url', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [r.id, r.notify_url!]));
}

export interface NewDelivery extends MerchantScope {
  eventId: number;
  url: string;
  orderKey: string;
}

export async function insertDeliveries(db: Db, deliveries: NewDelivery[], now: Date) {
  if (deliveries.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      deliveries.map((d) => ({
        event_id: d.eventId,
        merchant_id: d.merchantId,
        livemode: d.livemode,
        url: d.url,
        endpoint: endpointOf(d.url),
        order_key: d.orderKey,
        status: 'pending' as const,
        next_attempt_at: now,
        created_at: now,
      })),
    )
    .execute();
}

// ---- delivery

/**
 * Claims due deliveries (FOR UPDATE SKIP LOCKED: instances never take the same one) and counts the
 * attempt: the oldest due first, at most `limit`, and per endpoint at most its free places (`places`). A delivery
 * waits while an earlier one of its order key (its payment) is untried or in flight, so one payment's
 * events leave in order unless an earlier one is backing off.
 *
 * It visits the endpoints with pending deliveries (a skip scan of the endpoint index: one probe per
 * endpoint, however many deliveries each has) and reads from each with free places its oldest due ones,
 * no more than an endpoint may have in flight. A full endpoint's deliveries are not read at all: a
 * receiver that never answers piles them up at its payment rate, and a claim that walked all due
 * deliveries in order passed by every one of them at every beat. The cost grows with the endpoints that
 * have pending deliveries instead (docs/decisions.md, "Job runner").
 *
 * The read per endpoint has one LIMIT for all endpoints (the most free places any has), and the cut to
 * each endpoint's free places comes after: with a limit
 * computed per endpoint PostgreSQL cannot know the read's size, guesses a tenth of the endpoint's rows, and
 * a big enough guess makes it JIT-compile the statement, which costs far more than the read. The rows read beyond an
 * endpoint's free places stay as they were; their lock ends with the statement.
 */
export function claimDueDeliveries(db: Db, now: Date, lockSeconds: number, limit: number, places: FreePlaces) {
  const freeByEndpoint = JSON.stringify(Object.fromEntries(places.free));
  const free = sql<number>`coalesce((${freeByEndpoint}::jsonb ->> ep.endpoint)::int, ${places.otherwise}::int)`;
  const readLimit = Math.max(places.otherwise, ...places.free.values());
  // The first endpoint with pending deliveries (after the one `after` names, when given), with its
  // earliest next attempt: one probe of the endpoint index, whose first entry per endpoint is that.
  const nextEndpoint = (after?: string) =>
    db
      .selectFrom('webhook_deliveries as w')
      .select(['w.endpoint', 'w.next_attempt_at as earliest'])
      .where('w.status', '=', 'pending')
      .$if(after !== undefined, (qb) => qb.where('w.endpoint', '>', sql.ref<string>(after!)))
      .orderBy('w.endpoint')
      .orderBy('w.next_attempt_at')
      .limit(1);
  return (
    db
      .withRecursive('endpoints(endpoint, earliest)', (qb) =>
        qb
          .selectFrom(nextEndpoint().as('first'))
          .select(['first.endpoint', 'first.earliest'])
          .unionAll((qb) =>
            qb
              .selectFrom('endpoints as ep')
              .innerJoinLateral(nextEndpoint('ep.endpoint').as('next'), (join) => join.onTrue())
              .select(['next.endpoint', 'next.earliest']),
          ),
      )
      .with('candidates', (qb) =>
        qb
          .selectFrom('endpoints as ep')
          .where('ep.earliest', '<=', now)
          .where(free, '>', 0)
          .innerJoinLateral(
            (eb) =>
              eb
                .selectFrom('webhook_deliveries as d')
                .select(['d.id', 'd.next_attempt_at'])
                .whereRef('d.endpoint', '=', 'ep.endpoint')
                .where('d.status', '=', 'pending')
                .where('d.next_attempt_at', '<=', now)
                .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<', now)]))
                // No earlier delivery of its order key in the way. A sub-select with LIMIT 1, not NOT EXISTS:
                // PostgreSQL runs it per candidate, probing the order index; as an anti-join, on tables
                // without statistics (before their first analyze), it read every pending delivery
                // once per candidate.
                .where(
                  (eb) =>
                    eb
                      .selectFrom('webhook_deliveries as e')
                      .select('e.id')
                      .whereRef('e.order_key', '=', 'd.order_key')
                      .whereRef('e.id', '<', 'd.id')
                      .where('e.status', '=', 'pending')
                      .where((eb) => eb.or([eb('e.attempts', '=', 0), eb('e.locked_until', '>=', now)]))
                      .limit(1),
                  'is',
                  null,
                )
                .orderBy('d.next_attempt_at')
                .orderBy('d.id')
                .limit(readLimit)
                .forUpdate()
                .skipLocked()
                .as('c'),
            (join) => join.onTrue(),
          )
          .select([
            'c.id',
            'c.next_attempt_at',
            free.as('free'),
            sql<number>`row_number() over (partition by ep.endpoint order by c.next_attempt_at, c.id)`.as('nth'),
          ]),
      )
      .with('picked', (qb) =>
        qb
          .selectFrom('candidates')
          .select('candidates.id')
          .whereRef('candidates.nth', '<=', 'candidates.free')
          .orderBy('candidates.next_attempt_at')
          .orderBy('candidates.id')
          .limit(limit),
      )
      .updateTable('webhook_deliveries as d')
      .set({
        attempts: sql`d.attempts + 1`,
        locked_until: sql`${now}::timestamptz + make_interval(secs => ${lockSeconds})`,
      })
      // Each delivery with its event and its merchant's signing secrets, which the send needs: read here,
      // in the claim, rather than by two more statements per delivery.
      .from('outbox_events as e')
      .leftJoin('merchant_settings as s', (join) =>
        join.onRef('s.merchant_id', '=', 'e.merchant_id').onRef('s.livemode', '=', 'e.livemode'),
      )
      .whereRef('e.id', '=', 'd.event_id')
      .where('d.id', 'in', (qb) => qb.selectFrom('picked').select('picked.id'))
      .returning([
        'd.id',
        'd.event_id',
        'd.merchant_id',
        'd.livemode',
        'd.url',
        'd.endpoint',
        'd.attempts',
        'd.created_at',
        'e.type as event_type',
        'e.payload as event_payload',
        'e.created_at as event_created_at',
        's.webhook_secret',
        's.previous_webhook_secret',
        's.previous_valid_until',
      ])
      .execute()
  );
}

export { recordAttempt, type AttemptRecord, type DeliveryOutcome } from './record-statement.js';

// ---- the delivery log

export interface EventFilter {
  type?: string;
  paymentId?: number;
  beforeId?: number;
  limit: number;
}

export function findEvents(db: Db, scope: MerchantScope, filter: EventFilter) {
  let query = db
    .selectFrom('outbox_events')
    .select(['id', 'type', 'payload', 'created_at', 'livemode'])
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.paymentId !== undefined)
    query = query.where(sql<string>`payload->>'paymentId'`, '=', String(filter.paymentId));
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

export function findEventOfScope(db: Db, scope: MerchantScope, id: number) {
  return db
    .selectFrom('outbox_events')
    .select(['id', 'type', 'payload', 'created_at', 'livemode', 'merchant_id'])
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findAttempts(db: Db, eventId: number) {
  return db
    .selectFrom('webhook_attempts')
    .select(['at', 'url', 'status_code', 'duration_ms', 'error'])
    .where('event_id', '=', eventId)
    .orderBy('id')
    .execute();
}

export async function pendingDeliveryCount(db: Db, eventId: number): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('event_id', '=', eventId)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Events (with their deliveries and attempts, by cascade) older than the retention, once queued and with no delivery pending. */
export async function deleteEventsBefore(db: Db, cutoff: Date): Promise<number> {
  const rows = await db
    .deleteFrom('outbox_events')
    .where('created_at', '<', cutoff)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('outbox_queue as q')
            .select(sql`1`.as('one'))
            .whereRef('q.event_id', '=', 'outbox_events.id'),
        ),
      ),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries as d')
            .select(sql`1`.as('one'))
            .whereRef('d.event_id', '=', 'outbox_events.id')
            .where('d.status', '=', 'pending'),
        ),
      ),
    )
    .returning('id')
    .execute();
  return rows.length;
}

// ---- once a day; notices

/** True the first time today for this merchant, mode and subject; false after. */
export async function claimDailyReport(db: Db, scope: MerchantScope, subject: string, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('daily_reports')
    .values({
      merchant_id: scope.merchantId,
      livemode: scope.livemode,
      subject,
      day: now.toISOString().slice(0, 10),
    })
    .onConflict((oc) => oc.doNothing())
    .returning('subject')
    .executeTakeFirst();
  return row !== undefined;
}

export async function merchantEmails(db: Db, merchantId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('email')
    .where('merchant_id', '=', merchantId)
    .where('removed_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.email);
}

export async function insertNotice(
  db: Db,
  notice: { merchantId: number; kind: string; to: string; subject: string; body: string; at: Date },
): Promise<number> {
  const row = await db
    .insertInto('notices')
    .values({
      merchant_id: notice.merchantId,
      kind: notice.kind,
      to: notice.to,
      subject: notice.subject,
      body: notice.body,
      at: notice.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export function findNotice(db: Db, id: number) {
  return db.selectFrom('notices').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function markNoticeSent(db: Db, id: number, at: Date) {
  await db.updateTable('notices').set({ sent_at: at }).where('id', '=', id).execute();
}

export function findNotices(db: Db, merchantId: number, filter: { beforeId?: number; limit: number }) {
  let query = db
    .selectFrom('notices')
    .select(['id', 'kind', 'to', 'subject', 'at', 'sent_at'])
    .where('merchant_id', '=', merchantId);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  return query.orderBy('id', 'desc').limit(filter.limit).execute();
}

// ---- history of one payment request (its timeline)

export interface EventObjects {
  paymentRequestId: number;
  paymentIds: number[];
  refundIds: number[];
}

/** The events announcing changes of a payment request, its payments and their refunds, oldest first. */
export function findEventsOfObjects(db: Db, scope: MerchantScope, objects: EventObjects) {
  return db
    .selectFrom('outbox_events')
    .select(['id', 'type', 'created_at'])
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .where((eb) => {
      const of = (prefix: string, ids: number[]) =>
        ids.length === 0 ? eb.val(false) : eb.and([eb('type', 'like', `${prefix}.%`), eb('object_id', 'in', ids)]);
      return eb.or([
        of('payment_request', [objects.paymentRequestId]),
        of('payment', objects.paymentIds),
        of('refund', objects.refundIds),
      ]);
    })
    .orderBy('id')
    .execute();
}

export function findAttemptsOfEvents(db: Db, eventIds: number[]) {
  if (eventIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_attempts')
    .select(['event_id', 'at', 'url', 'status_code', 'duration_ms', 'error'])
    .where('event_id', 'in', eventIds)
    .orderBy('id')
    .execute();
}

/** The decline codes a merchant retries on the next connection; none without settings. */
export async function findRetryDeclineCodes(db: Db, scope: MerchantScope): Promise<string[]> {
  const row = await db
    .selectFrom('merchant_settings')
    .select('retry_decline_codes')
    .where('merchant_id', '=', scope.merchantId)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
  return row?.retry_decline_codes ?? [];
}
