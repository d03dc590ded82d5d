import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { randomBase62 } from '../../lib/crypto.js';
import type { Db } from '../../storage/db.js';

/** How often a gateway process says it is alive, and how long its silence means it is dead. */
export const HEARTBEAT_INTERVAL_MS = 1000;
export const INSTANCE_LEASE_SECONDS = 3;
/** Rows of instances silent this long are deleted by whichever instance beats next. */
const FORGET_AFTER_SECONDS = 3600;

export interface Heartbeat {
  /** This process's id; idempotency claims name it as their holder. */
  readonly instanceId: string;
  stop(): Promise<void>;
}

/**
 * Liveness of gateway processes, so work a process holds (an idempotency claim) is released within
 * seconds of its death instead of after a fixed time-out. Liveness is wall time read from the
 * database (now()), never the application clock: every instance compares against the same clock,
 * and tests that move a manual clock do not make live instances look dead.
 */
export async function startHeartbeat(db: Db, logger: FastifyBaseLogger): Promise<Heartbeat> {
  const instanceId = `gwi_${randomBase62(16)}`;
  await db
    .insertInto('gateway_instances')
    .values({ id: instanceId, started_at: sql<Date>`now()`, seen_at: sql<Date>`now()` })
    .execute();
  let beating: Promise<unknown> = Promise.resolve();
  const beat = () => {
    beating = db
      .with('forgotten', (qb) =>
        qb
          .deleteFrom('gateway_instances')
          .where('seen_at', '<', sql<Date>`now() - make_interval(secs => ${FORGET_AFTER_SECONDS})`),
      )
      .updateTable('gateway_instances')
      .set({ seen_at: sql<Date>`now()` })
      .where('id', '=', instanceId)
      .execute()
      .catch((error: Error) => logger.warn({ err: { message: error.message } }, 'heartbeat not written'));
  };
  const timer = setInterval(beat, HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return {
    instanceId,
    async stop() {
      clearInterval(timer);
      await beating;
      // A graceful stop has finished its requests; its row going away frees anything it still held.
      await db.deleteFrom('gateway_instances').where('id', '=', instanceId).execute();
    },
  };
}

/** SQL: the instance named by `holder` beat within its lease. */
export const isLive = (holder: ReturnType<typeof sql.ref>) =>
  sql<boolean>`exists (select 1 from gateway_instances gi where gi.id = ${holder} and gi.seen_at > now() - make_interval(secs => ${INSTANCE_LEASE_SECONDS}))`;
