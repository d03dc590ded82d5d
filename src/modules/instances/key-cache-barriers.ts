import { sql } from 'kysely';
import type { Db } from '../../storage/db.js';
import { INSTANCE_LEASE_SECONDS } from './heartbeat.js';

/**
 * The SQL of the API-key cache's barriers (migration 0012): numbered notices on the cache's channel,
 * and each instance's acknowledgement of the highest it has seen, kept in its gateway_instances row.
 */

/** Sends barrier `kind:n` on the channel (committed at once) and returns n. */
export async function sendBarrier(db: Db, kind: 'r' | 'p'): Promise<number> {
  const { rows } = await sql<{ n: number }>`select api_key_cache_barrier(${kind}) as n`.execute(db);
  return Number(rows[0].n);
}

/**
 * A lease probe: this instance is alive (seen_at, so anyone waiting for acknowledgements counts it),
 * has seen barriers up to `seen`, and sends a probe barrier, whose number it returns; undefined when
 * its row is gone (forgotten as dead).
 */
export async function probe(db: Db, instanceId: string, seen: number): Promise<number | undefined> {
  const row = await db
    .updateTable('gateway_instances')
    .set({ seen_at: sql<Date>`now()`, key_cache_seen: sql<number>`greatest(key_cache_seen, ${seen})` })
    .where('id', '=', instanceId)
    .returning(sql<number>`api_key_cache_barrier('p')`.as('n'))
    .executeTakeFirst();
  return row ? Number(row.n) : undefined;
}

export async function acknowledge(db: Db, instanceId: string, seen: number): Promise<void> {
  await db
    .updateTable('gateway_instances')
    .set({ key_cache_seen: sql<number>`greatest(key_cache_seen, ${seen})` })
    .where('id', '=', instanceId)
    .execute();
}

/** How many live instances have not yet acknowledged barrier n. */
export async function unacknowledged(db: Db, barrier: number): Promise<number> {
  const row = await db
    .selectFrom('gateway_instances')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key_cache_seen', '<', barrier)
    .where('seen_at', '>', sql<Date>`now() - make_interval(secs => ${INSTANCE_LEASE_SECONDS})`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
