import { createQueryId, type CompiledQuery } from 'kysely';

/**
 * A statement built and compiled once, then reused with other values (docs/performance.md, "Statements
 * compiled once"). Building the settle statement of a payment (five CTEs) with kysely on every call was
 * the largest cost of ours per payment. The builder runs once with a
 * placeholder for each value (`value(name)`); each later `fill` only puts its own values in the compiled
 * parameters, in the places the placeholders took. Anything that changes the text (which columns are
 * set, which CTEs exist) must be fixed for one template: keep one template per shape.
 *
 * A placeholder must reach the statement whole, as a parameter of its own, or as the JSON text of one
 * (`JSON.stringify(value)`, as a builder writes a jsonb value); one used inside a larger value or text
 * is refused when the template is made, so a template never sends a half-filled statement.
 */
export interface StatementTemplate<R> {
  readonly sql: string;
  fill(values: Record<string, unknown>): CompiledQuery<R>;
}

const MARK = '\u0000value:';
const JSON_MARK = JSON.stringify(MARK).slice(0, -1);

type Slot = { name: string; json: boolean } | { constant: unknown };

export function statementTemplate<R>(build: (value: <T>(name: string) => T) => CompiledQuery<R>): StatementTemplate<R> {
  const compiled = build(<T>(name: string) => `${MARK}${name}` as T);
  const slots = compiled.parameters.map(slotOf);
  if (compiled.sql.includes(MARK) || compiled.sql.includes(JSON_MARK)) {
    throw new Error('statementTemplate: a placeholder was written into the statement text');
  }
  return {
    sql: compiled.sql,
    fill(values) {
      const parameters = slots.map((slot) => {
        if ('constant' in slot) return slot.constant;
        const value = values[slot.name];
        if (value === undefined) throw new Error(`statementTemplate: no value for ${slot.name}`);
        return slot.json && value !== null ? JSON.stringify(value) : value;
      });
      return { ...compiled, queryId: createQueryId(), parameters };
    },
  };
}

function slotOf(parameter: unknown): Slot {
  if (typeof parameter !== 'string' || !(parameter.includes(MARK) || parameter.includes(JSON_MARK))) {
    return { constant: parameter };
  }
  if (parameter.startsWith(MARK) && !parameter.includes(MARK, 1))
    return { name: parameter.slice(MARK.length), json: false };
  const decoded: unknown =
    parameter.startsWith(JSON_MARK) && parameter.endsWith('"') ? JSON.parse(parameter) : undefined;
  if (typeof decoded === 'string' && decoded.startsWith(MARK) && !decoded.includes(MARK, 1)) {
    return { name: decoded.slice(MARK.length), json: true };
  }
  throw new Error(`statementTemplate: a placeholder is part of a larger value (${JSON.stringify(parameter)})`);
}
