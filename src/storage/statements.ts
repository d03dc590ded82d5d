import { sql, type CompiledQuery, type Expression, type QueryResult } from 'kysely';
import type { StatementTemplate } from './statement-template.js';

/** The CTE a statement-embedded insert reads its rows from, and which of them. */
export interface FromCte {
  cte: string;
  where?: Expression<boolean>;
}

export const fromClause = (from: FromCte | undefined) =>
  from === undefined
    ? sql``
    : sql` from ${sql.table(from.cte)}${from.where === undefined ? sql`` : sql` where ${from.where}`}`;

/** A value given as SQL (an expression over a CTE) rather than as a parameter. */
export const isExpression = (v: unknown): v is Expression<unknown> =>
  typeof v === 'object' && v !== null && 'toOperationNode' in v;

/** The columns a grouped statement (group-commit.ts) takes as arrays, each with its SQL type, in order. */
export type UnnestColumns = ReadonlyArray<readonly [name: string, type: string]>;

/**
 * `(select * from unnest($1::int[], $2::t2[], …) as m(index, …))`: one row per call of a group, `index`
 * its place in the group; `value(name)` is the statement template's placeholder for each array.
 */
export function unnestRows(columns: UnnestColumns, value: <T>(name: string) => T) {
  const all: UnnestColumns = [['index', 'int'], ...columns];
  const arrays = sql.join(all.map(([name, type]) => sql`${value(name)}::${sql.raw(type)}[]`));
  return sql<
    Record<string, unknown>
  >`(select * from unnest(${arrays}) as m(${sql.join(all.map(([name]) => sql.id(name)))}))`;
}

/** The arrays `unnestRows` binds: each call's value at its place, null where it has none, jsonb as its text. */
function unnestValues(rows: Array<Record<string, unknown>>, columns: UnnestColumns): Record<string, unknown[]> {
  const values: Record<string, unknown[]> = { index: rows.map((_, index) => index) };
  for (const [name, type] of columns) {
    values[name] = rows.map((row) => {
      const value = row[name] ?? null;
      return type === 'jsonb' && value !== null ? JSON.stringify(value) : value;
    });
  }
  return values;
}

/** A row a grouped statement answers, with the place in the group (`unnestRows`' index) of the call it answers. */
export type Grouped<R> = R & { group_index: number };

/**
 * Runs a grouped statement (a template over `unnestRows`) with the group's values bound as arrays, and
 * gives each call its row at its place in the group, undefined where its part did not apply.
 */
export async function runGrouped<R>(
  db: { executeQuery<O>(query: CompiledQuery<O>): Promise<QueryResult<O>> },
  template: StatementTemplate<Grouped<R>>,
  calls: Array<Record<string, unknown>>,
  columns: UnnestColumns,
): Promise<Array<R | undefined>> {
  const { rows } = await db.executeQuery(template.fill(unnestValues(calls, columns)));
  const answers = Array.from({ length: calls.length }, (): R | undefined => undefined);
  for (const { group_index: index, ...row } of rows) answers[index] = row as R;
  return answers;
}
