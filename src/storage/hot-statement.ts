import { sql, type CompiledQuery, type QueryCreator, type RawBuilder } from 'kysely';
import type { Db } from './db.js';
import { groupsCommits, hotGroup } from './group-commit.js';
import { hot } from './prepared.js';
import type { Database } from './schema.js';
import { statementTemplate, type StatementTemplate } from './statement-template.js';

/**
 * A hot statement written once, in two forms: one call alone, and concurrent calls grouped into one
 * multi-row statement (group-commit.ts). The body reads each call's values from the CTE `calls`, one row
 * per call, `index` its place in the group: alone, that row is the call's parameters, inlined by the
 * planner (`not materialized`), so the single statement reads `$n` where it reads `calls.x` and plans
 * exactly as if written with parameters; grouped, it is `unnest` over one array per value. The body
 * answers its rows with the `index` of the call each answers, as `group_index`.
 *
 * Both forms are compiled once per shape (statement-template.ts). A shape is what changes the text: a
 * statement whose parts depend on the call is one `hotStatement` per shape.
 */
export interface HotStatement<R> {
  run(db: Db, call: Record<string, unknown>): Promise<R | undefined>;
}

/** What a body is given to read its calls' values. */
export interface Calls {
  /** `calls.name`: the call's value `name`, of SQL type `type` (the same wherever it is read). */
  value: (name: string, type: string) => RawBuilder<unknown>;
  /** `calls as (…)`: the first CTE of a statement written as SQL text. */
  readonly cte: RawBuilder<unknown>;
  /** `with calls as (…)` on `db`: the start of a statement written with the query builder. */
  with: (db: Db) => QueryCreator<Database>;
}

export interface HotStatementSpec<R> {
  /** The statement and its shape: names its group on a store that groups commits (hotGroup). */
  key: string;
  /**
   * The label of the single form as a prepared statement (prepared.ts); none: not prepared. The group
   * form never is (HOT_GROUPING in group-commit.ts says why).
   */
  prepared?: string;
  build(db: Db, calls: Calls): CompiledQuery<Grouped<R>>;
}

/** A row a statement answers, with the place in the group of the call it answers. */
export type Grouped<R> = R & { group_index: number };

/** The values a statement reads, each with its SQL type, in order. */
type Columns = ReadonlyArray<readonly [name: string, type: string]>;

interface Forms<R> {
  columns: Columns;
  one: StatementTemplate<Grouped<R>>;
  many: StatementTemplate<Grouped<R>>;
}

export function hotStatement<R>(spec: HotStatementSpec<R>): HotStatement<R> {
  let forms: Forms<R> | undefined;
  const formsOn = (db: Db) => (forms ??= compileForms(db, spec));

  const one = async (db: Db, call: Record<string, unknown>) => {
    const { one, columns } = formsOn(db);
    const compiled = one.fill(callValues([call], columns, (values) => values[0]));
    const { rows } = await db.executeQuery(spec.prepared ? hot(spec.prepared, compiled) : compiled);
    return answers(rows, 1)[0];
  };
  const many = async (db: Db, calls: Array<Record<string, unknown>>) => {
    const { many, columns } = formsOn(db);
    const values = callValues(calls, columns, (values) => values);
    const { rows } = await db.executeQuery(many.fill({ ...values, index: calls.map((_, index) => index) }));
    return answers(rows, calls.length);
  };

  return {
    run: (db, call) =>
      groupsCommits(db)
        ? hotGroup<Record<string, unknown>, R>(db, spec.key, () => ({
            one: (call) => one(db, call),
            many: (calls) => many(db, calls),
          })).run(call)
        : one(db, call),
  };
}

/**
 * Builds the body twice: once to learn which values it reads (and their types), then in each form
 * over those values.
 */
function compileForms<R>(db: Db, spec: HotStatementSpec<R>): Forms<R> {
  const types = new Map<string, string>();
  const read = (name: string, type: string) => {
    const known = types.get(name);
    if (known !== undefined && known !== type)
      throw new Error(`hotStatement ${spec.key}: ${name} is ${known} and ${type}`);
    types.set(name, type);
    return sql`calls.${sql.id(name)}`;
  };
  spec.build(db, callsOf(sql`(select 0 as index)`, false, read));
  const columns = [...types];
  const form = (rows: (value: <T>(name: string) => T) => RawBuilder<unknown>, inlined: boolean) =>
    statementTemplate((value) => spec.build(db, callsOf(rows(value), inlined, read)));
  return {
    columns,
    one: form((value) => oneCall(columns, value), true),
    many: form((value) => groupedCalls(columns, value), false),
  };
}

function callsOf(
  rows: RawBuilder<unknown>,
  inlined: boolean,
  value: (name: string, type: string) => RawBuilder<unknown>,
): Calls {
  return {
    value,
    cte: sql`calls as ${inlined ? sql`not materialized ` : sql``}${rows}`,
    with: (db) =>
      // `calls` is more than Database knows; the bodies read it as SQL (`value`).
      db.with(
        (cte) => (inlined ? cte('calls').notMaterialized() : cte('calls')),
        () => rows as RawBuilder<Record<string, unknown>>,
      ) as unknown as QueryCreator<Database>,
  };
}

/** `(select 0 as index, $1::t1 as a, …)`: the one call's values as parameters. */
const oneCall = (columns: Columns, value: <T>(name: string) => T) =>
  sql`(select 0 as index, ${sql.join(columns.map(([name, type]) => sql`${value(name)}::${sql.raw(type)} as ${sql.id(name)}`))})`;

/** `(select * from unnest($1::int[], $2::t1[], …) as u(index, a, …))`: one row per call of a group. */
function groupedCalls(columns: Columns, value: <T>(name: string) => T) {
  const all: Columns = [['index', 'int'], ...columns];
  const arrays = sql.join(all.map(([name, type]) => sql`${value(name)}::${sql.raw(type)}[]`));
  return sql`(select * from unnest(${arrays}) as u(${sql.join(all.map(([name]) => sql.id(name)))}))`;
}

/** Each value the statement reads, of every call (`gather` makes the parameter): null where a call has none, jsonb as its text. */
function callValues(
  calls: Array<Record<string, unknown>>,
  columns: Columns,
  gather: (values: unknown[]) => unknown,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, type] of columns) {
    values[name] = gather(
      calls.map((call) => {
        const value = call[name] ?? null;
        return type === 'jsonb' && value !== null ? JSON.stringify(value) : value;
      }),
    );
  }
  return values;
}

/** Each call's row at its place, undefined where the statement did not apply to it. */
function answers<R>(rows: Array<Grouped<R>>, calls: number): Array<R | undefined> {
  const byCall = Array.from({ length: calls }, (): R | undefined => undefined);
  for (const { group_index: index, ...row } of rows) byCall[index] = row as R;
  return byCall;
}
