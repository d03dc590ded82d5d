import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

// db.ts's Db, named here because db.ts imports this file.
type Db = Kysely<Database>;

/**
 * The embedded store's autovacuum. PGlite runs PostgreSQL as a single backend without autovacuum
 * workers, so nothing else would reclaim dead rows, give the planner statistics (`reltuples` stays −1
 * on a table never analyzed) or freeze old transaction ids. This does what autovacuum would, by its
 * rules and with the store's settings for them, one table per call: the store runs on the gateway's own
 * thread, and one table at a time keeps each pause short (measured in docs/performance.md, "The
 * embedded store's upkeep").
 * A PostgreSQL server does this itself.
 */

/** How often the background loop looks; after a call that maintained a table, the loop's next pass calls again. */
export const UPKEEP_EVERY_MS = 60_000;

// Autovacuum's own rules, with the server's settings (PostgreSQL's defaults unless changed): a table is
// vacuumed once its dead rows pass autovacuum_vacuum_threshold + _scale_factor of its rows (50 + 20 %), or
// its inserts since the last vacuum autovacuum_vacuum_insert_threshold + _scale_factor (1,000 + 20 %:
// insert-only tables need it for the visibility map and freezing), or its oldest unfrozen transaction id
// is older than vacuum_freeze_table_age (150 million: such a vacuum is aggressive, it freezes the whole
// table); analyzed once its changes since the last analyze pass autovacuum_analyze_threshold +
// _scale_factor (50 + 10 %).
const DEAD = 'autovacuum_vacuum';
const INSERTED = 'autovacuum_vacuum_insert';
const CHANGED = 'autovacuum_analyze';

export interface UpkeepDone {
  table: string;
  vacuumed: boolean;
  analyzed: boolean;
  ms: number;
}

/** What one upkeep did, as one word: `vacuum`, `analyze` or `vacuum+analyze` (the metric's label, the bench's print). */
export const upkeepAction = (done: UpkeepDone): string =>
  [done.vacuumed && 'vacuum', done.analyzed && 'analyze'].filter(Boolean).join('+');

interface Due {
  table: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * The table most past its thresholds, if any. The activity counters are the backend's own (flushed at
 * most once a second, and not kept across a restart: PGlite writes no statistics file), so a restart
 * forgets the churn before it; the next churn's vacuum reclaims both. A table with rows that was never
 * analyzed (reltuples −1) is analyzed whatever its counters say.
 */
async function mostDue(db: Db): Promise<Due | undefined> {
  const setting = (name: string) => sql`current_setting(${name})::float8`;
  const over = (count: string, rule: string) => {
    const threshold = sql`${setting(`${rule}_threshold`)} + ${setting(`${rule}_scale_factor`)} * greatest(c.reltuples, 0)`;
    return sql`${sql.ref(count)}::float8 / (${threshold})`;
  };
  const { rows } = await sql<Due>`
    select table_name as "table", dead > 1 or inserted > 1 or old_xids as "vacuum", changed > 1 or never_analyzed as "analyze"
    from (
      select s.relname as table_name, ${over('s.n_dead_tup', DEAD)} as dead, ${over('s.n_ins_since_vacuum', INSERTED)} as inserted,
        ${over('s.n_mod_since_analyze', CHANGED)} as changed, age(c.relfrozenxid) > ${setting('vacuum_freeze_table_age')} as old_xids,
        c.reltuples < 0 and pg_relation_size(c.oid) > 0 as never_analyzed
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = 'public'
    ) t
    where greatest(dead, inserted, changed) > 1 or old_xids or never_analyzed
    order by greatest(dead, inserted, changed) desc, table_name
    limit 1`.execute(db);
  return rows[0];
}

/** Vacuums and/or analyzes the table most due for it; undefined when none is. */
export async function upkeepOnce(db: Db): Promise<UpkeepDone | undefined> {
  const due = await mostDue(db);
  if (!due) return undefined;
  const started = performance.now();
  const table = sql.id(due.table);
  if (due.vacuum) await sql`vacuum ${sql.raw(due.analyze ? '(analyze) ' : '')}${table}`.execute(db);
  else await sql`analyze ${table}`.execute(db);
  return { table: due.table, vacuumed: due.vacuum, analyzed: due.analyze, ms: Math.round(performance.now() - started) };
}
