import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../lib/clock.js';
import type { Db } from '../storage/db.js';

/**
 * A durable job queue in PostgreSQL. Jobs are written in the caller's transaction (so a job
 * exists exactly when the state change that needs it committed), claimed with
 * FOR UPDATE SKIP LOCKED (any number of instances cooperate without a coordinator), and
 * retried with back-off. A crashed worker's claim expires after the job's time-out.
 */
export interface JobDefinition<P = any> {
  kind: string;
  maxAttempts: number;
  timeoutSeconds: number;
  /** Seconds before retry number `attempt` (1-based). */
  backoffSeconds?: (attempt: number) => number;
  /** Must be idempotent: load the record, return early if it is already final. */
  handle(payload: P, job: { id: number; attempts: number }): Promise<void>;
}

export interface EnqueueInput {
  kind: string;
  payload: unknown;
  runAt: Date;
  merchantId?: number | null;
  /** At most one job per key, ever (e.g. "payment_request.expire:42"). */
  dedupeKey?: string;
  maxAttempts?: number;
}

export async function enqueueJob(db: Db, input: EnqueueInput): Promise<void> {
  await db
    .insertInto('jobs')
    .values({
      kind: input.kind,
      payload: JSON.stringify(input.payload),
      run_at: input.runAt,
      merchant_id: input.merchantId ?? null,
      dedupe_key: input.dedupeKey ?? null,
      max_attempts: input.maxAttempts ?? 10,
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .execute();
}

const defaultBackoff = (attempt: number) => Math.min(3600, 2 ** attempt * 5);

export class JobRunner {
  private readonly definitions = new Map<string, JobDefinition>();
  private readonly sweeps: Array<() => Promise<number>> = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: FastifyBaseLogger,
  ) {}

  register(definition: JobDefinition): void {
    this.definitions.set(definition.kind, definition);
  }

  /**
   * Periodic work that finds its own rows by state (a payment pending too long) instead of a queued
   * job per row; it runs on every pass and must claim what it handles so instances do not collide.
   */
  registerSweep(sweep: () => Promise<number>): void {
    this.sweeps.push(sweep);
  }

  /** Runs every job due now, then the sweeps; returns how much ran. Tests call this after moving the clock. */
  async runDue(limit = 100): Promise<number> {
    // One pass at a time per process; concurrent callers share it.
    this.running ??= (async () => {
      let done = await this.pass(limit);
      for (const sweep of this.sweeps) done += await sweep();
      return done;
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(limit: number): Promise<number> {
    const now = this.clock.now();
    const claimed = await this.db
      .updateTable('jobs')
      .set({
        attempts: sql`attempts + 1`,
        locked_until: sql`${now}::timestamptz + make_interval(secs => 300)`,
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
      const definition = this.definitions.get(job.kind);
      try {
        if (!definition) throw new Error(`no handler for job kind ${job.kind}`);
        await definition.handle(job.payload, { id: job.id, attempts: job.attempts });
        await this.db.updateTable('jobs').set({ completed_at: this.clock.now(), locked_until: null }).where('id', '=', job.id).execute();
      } catch (error) {
        const message = (error as Error).message ?? String(error);
        const exhausted = job.attempts >= (definition?.maxAttempts ?? job.max_attempts);
        const retryAt = new Date(this.clock.now().getTime() + (definition?.backoffSeconds ?? defaultBackoff)(job.attempts) * 1000);
        this.logger.warn({ jobId: job.id, kind: job.kind, attempts: job.attempts, exhausted, error: message }, 'job failed');
        await this.db
          .updateTable('jobs')
          .set(exhausted ? { failed_at: this.clock.now(), last_error: message, locked_until: null } : { run_at: retryAt, last_error: message, locked_until: null })
          .where('id', '=', job.id)
          .execute();
      }
    }
    return claimed.length;
  }

  start(intervalMs = 500): void {
    const tick = async () => {
      try {
        while ((await this.runDue()) > 0) {
          // drain what is due before sleeping
        }
      } catch (error) {
        this.logger.error({ err: error }, 'job pass failed');
      }
      this.timer = setTimeout(tick, intervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
