import { sql, type Expression, type QueryCreator } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../lib/clock.js';
import { OneMoreAfter } from '../lib/one-more-after.js';
import type { Db } from '../storage/db.js';
import type { Database } from '../storage/schema.js';
import { fromClause, isExpression, type FromCte } from '../storage/statements.js';
import { JOB_CATALOG, type JobKind, type JobPayloads } from './catalog.js';

/**
 * A durable job queue in PostgreSQL. Jobs are written in the caller's transaction (so a job
 * exists exactly when the state change that needs it committed), claimed with
 * FOR UPDATE SKIP LOCKED (any number of instances cooperate without a coordinator), and
 * retried with back-off. A crashed worker's claim expires after the job's time-out (jobs/catalog.ts).
 */

/** Must be idempotent: load the record, return early if it is already final. */
export type JobHandler<K extends JobKind> = (
  payload: JobPayloads[K],
  job: { id: number; attempts: number },
) => Promise<void>;
export type JobHandlers = { [K in JobKind]?: JobHandler<K> };

/** The columns of one job row, as values or as SQL expressions over a CTE (see settle in payments). */
export interface JobRow<K extends JobKind> {
  payload: JobPayloads[K] | Expression<unknown>;
  runAt: Date | Expression<Date>;
  merchantId: number | null | Expression<number | null>;
  dedupeKey: string | Expression<string>;
}

/**
 * The one job insert: `insert into jobs … select <row> [from <source>]`, at most one job per dedupe key.
 * With `from`, one job per row of that CTE (none when it is empty), inside the caller's statement.
 */
export function insertJob<K extends JobKind, DB extends Database>(
  qc: QueryCreator<DB>,
  kind: K,
  row: JobRow<K>,
  from?: FromCte,
) {
  const value = (v: unknown) => (isExpression(v) ? v : sql.val(v));
  const payload = isExpression(row.payload) ? row.payload : sql`${JSON.stringify(row.payload)}::jsonb`;
  const select = sql`select ${sql.val(kind)}::text, ${payload}, ${value(row.runAt)}::timestamptz, ${value(row.merchantId)}::bigint,
    ${value(row.dedupeKey)}::text, ${JOB_CATALOG[kind].maxAttempts}::int${fromClause(from)}`;
  // A CTE's creator knows more tables than Database; the insert needs only its own.
  return (qc as unknown as QueryCreator<Database>)
    .insertInto('jobs')
    .columns(['kind', 'payload', 'run_at', 'merchant_id', 'dedupe_key', 'max_attempts'])
    .expression(select as never)
    .onConflict((oc) => oc.column('dedupe_key').doNothing());
}

export async function enqueueJob<K extends JobKind>(db: Db, kind: K, row: JobRow<K>): Promise<void> {
  await insertJob(db, kind, row).execute();
}

const defaultBackoff = (attempt: number) => Math.min(3600, 2 ** attempt * 5);

/**
 * Periodic work that finds its own rows by state instead of a queued job per row. `run` returns how much
 * it did; `everyMs` is how often the background loop runs it: as often as its work is time-critical and
 * no more, since each run is at least one statement, on an idle gateway too.
 */
export interface Sweep {
  run: () => Promise<number>;
  everyMs: number;
  /**
   * Work `run` started and left running beside the loop (the delivery sweep's sends, and the claims it
   * makes itself as they end), so that one slow piece of it does not hold the loop's pass; resolves once
   * none is left. `runDue` waits for it; `stop` too, `stopping`: from then until the next `run` the sweep
   * starts nothing of its own.
   */
  settled?: (stopping: boolean) => Promise<void>;
}

/** The loop's own beat: the job claim runs every tick, a sweep on the first tick once it is due. */
export const TICK_MS = 500;
/** Jobs claimed per pass. */
const JOB_BATCH = 100;
/**
 * After a pass that found work, the next one comes this much later rather than at once, unless the
 * pass found a backlog (DRAIN_AT_ONCE rows or more: then at once, so no rate of events is ever capped).
 * Under a steady stream of payments each pass then carries ~100 ms of events instead of the few that
 * arrived during the last pass: every pass costs about seven statements (the job claim, the relay's
 * transaction, the delivery claim) whatever it carries (docs/performance.md, "The job loop's pace
 * under a stream of payments").
 */
export const DRAIN_PAUSE_MS = 100;
export const DRAIN_AT_ONCE = 100;

export class JobRunner {
  private readonly handlers: JobHandlers = {};
  private readonly sweeps: { sweep: Sweep; dueAt: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** One pass at a time per process; concurrent callers share it. */
  private readonly passes = new OneMoreAfter<number>({ onError: () => {} }); // joined only: no pass follows another

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** Called by app.ts with each module's contribution; a sweep must claim what it handles so instances do not collide. */
  use(handlers: JobHandlers, sweeps: Sweep[] = []): void {
    Object.assign(this.handlers, handlers);
    this.sweeps.push(...sweeps.map((sweep) => ({ sweep, dueAt: 0 })));
  }

  /**
   * Runs every job due now, then every sweep, and waits for what the sweeps started; returns how much ran.
   * Tests call this after moving the clock.
   */
  async runDue(limit = JOB_BATCH): Promise<number> {
    const done = await this.once(limit, () => true);
    await this.settled(false);
    return done;
  }

  private async settled(stopping: boolean): Promise<void> {
    for (const { sweep } of this.sweeps) await sweep.settled?.(stopping);
  }

  /**
   * The background loop's pass: the jobs due, then the sweeps whose time has come (wall time: the clock
   * tests move is the payments' time, not the loop's). A sweep that found work stays due, so the loop drains it.
   */
  private runTick(): Promise<number> {
    const now = performance.now();
    return this.once(JOB_BATCH, (entry) => entry.dueAt <= now);
  }

  private once(limit: number, due: (entry: { dueAt: number }) => boolean): Promise<number> {
    return this.passes.join(async () => {
      let done = await this.pass(limit);
      for (const entry of this.sweeps) {
        if (!due(entry)) continue;
        const found = await entry.sweep.run();
        entry.dueAt = found > 0 ? 0 : performance.now() + entry.sweep.everyMs;
        done += found;
      }
      return done;
    });
  }

  private async pass(limit: number): Promise<number> {
    const now = this.clock.now();
    const timeout = sql.join(
      Object.entries(JOB_CATALOG).map(([kind, budget]) => sql`when ${kind} then ${budget.timeoutSeconds}`),
      sql` `,
    );
    const claimed = await this.db
      .updateTable('jobs')
      .set({
        attempts: sql`attempts + 1`,
        locked_until: sql`${now}::timestamptz + make_interval(secs => case kind ${timeout} else 300 end)`,
      })
      .where('id', 'in', (qb) =>
        qb
          .selectFrom('jobs')
          .select('id')
          .where('completed_at', 'is', null)
          .where('failed_at', 'is', null)
          .where('run_at', '<=', now)
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
          .orderBy('run_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'kind', 'payload', 'attempts', 'max_attempts'])
      .execute();

    for (const job of claimed) {
      const handler = this.handlers[job.kind as JobKind] as JobHandler<JobKind> | undefined;
      try {
        if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
        await handler(job.payload as never, { id: job.id, attempts: job.attempts });
        await this.db
          .updateTable('jobs')
          .set({ completed_at: this.clock.now(), locked_until: null })
          .where('id', '=', job.id)
          .execute();
      } catch (error) {
        const message = (error as Error).message ?? String(error);
        const exhausted = job.attempts >= job.max_attempts;
        const retryAt = new Date(this.clock.now().getTime() + defaultBackoff(job.attempts) * 1000);
        this.logger.warn(
          { jobId: job.id, kind: job.kind, attempts: job.attempts, exhausted, error: message },
          'job failed',
        );
        await this.db
          .updateTable('jobs')
          .set(
            exhausted
              ? { failed_at: this.clock.now(), last_error: message, locked_until: null }
              : { run_at: retryAt, last_error: message, locked_until: null },
          )
          .where('id', '=', job.id)
          .execute();
      }
    }
    return claimed.length;
  }

  start(): void {
    this.stopped = false;
    const tick = async () => {
      let found = 0;
      try {
        // A backlog is drained pass after pass; a pass under way when stop() came is the last.
        while (!this.stopped && (found = await this.runTick()) >= DRAIN_AT_ONCE);
      } catch (error) {
        this.logger.error({ err: error }, 'job pass failed');
        found = 0;
      }
      if (!this.stopped) this.schedule(tick, found > 0 ? DRAIN_PAUSE_MS : TICK_MS);
    };
    this.schedule(tick, TICK_MS);
  }

  private schedule(tick: () => Promise<void>, ms: number): void {
    this.timer = setTimeout(() => void tick(), ms);
    this.timer.unref();
  }

  /** Stops the loop: no pass after the one under way, which it waits for, and for what the sweeps started. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.passes.close();
    await this.settled(true);
  }
}
