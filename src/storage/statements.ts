import { sql, type Expression } from 'kysely';

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
