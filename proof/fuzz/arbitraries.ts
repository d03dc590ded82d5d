import fc from 'fast-check';

/** The subset of JSON Schema the gateway's TypeBox schemas use (what /openapi.json publishes). */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  maxProperties?: number;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  default?: unknown;
  [other: string]: unknown;
}

/** Strings are kept short: long ones add nothing but bytes (the huge-body probes cover size). */
const SOFT_MAX_LENGTH = 24;
const DAY_MS = 24 * 60 * 60 * 1000;

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? SOFT_MAX_LENGTH, min + SOFT_MAX_LENGTH));
  if (schema.format === 'email') {
    return fc
      .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), fc.stringMatching(/^[a-z]{2,10}$/))
      .map(([user, host]) => `${user}@${host}.com`);
  }
  if (schema.format === 'date-time') {
    // Around now, as a real client's dates are: a callback's timestamp must be recent (30 days) and an
    // expiry in the future; a day back to four years ahead is both. A seed replays alike on the same day.
    const now = Date.now();
    return fc
      .date({ min: new Date(now - DAY_MS), max: new Date(now + 4 * 365 * DAY_MS), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength: min, maxLength: max });
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  // Numbers in major units carry at most two decimals here (the currency rules are the world's business).
  const scale = integer ? 1 : 100;
  let min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 / scale : -1e6);
  let max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 / scale : 1e6);
  min = Math.ceil(min * scale);
  max = Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER / scale) * scale);
  return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max }).map((n) => n / scale);
}

function objectArbitrary(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) model[name] = arbitraryOf(sub);
  const record = fc.record(model, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
  const patterns = Object.values(schema.patternProperties ?? {});
  if (patterns.length === 0) return record;
  const keys = stringArbitrary({ minLength: 1, maxLength: 40, ...schema.propertyNames });
  const extra = fc.dictionary(keys, arbitraryOf(patterns[0]), { maxKeys: Math.min(schema.maxProperties ?? 5, 5) });
  return fc.tuple(record, extra).map(([fixed, free]) => ({ ...free, ...fixed }));
}

/** An arbitrary producing values valid against the schema. */
export function arbitraryOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(arbitraryOf));
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      if (schema.uniqueItems) {
        // Equal by value, as JSON Schema compares items.
        return fc.uniqueArray(arbitraryOf(schema.items ?? {}), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 3, 3),
          selector: (item) => JSON.stringify(item),
        });
      }
      return fc.array(arbitraryOf(schema.items ?? {}), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object':
      return objectArbitrary(schema);
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

/** One constraint of a schema broken on purpose: the value at `path` replaced (or removed). */
export interface Violation {
  path: string[];
  constraint: string;
  /** `undefined` with `remove` drops the member. */
  value?: unknown;
  remove?: boolean;
}

const WRONG_TYPE: Record<string, unknown> = {
  string: 12345,
  integer: 'twelve',
  number: 'twelve',
  boolean: 'yes',
  object: 'object',
  array: 'array',
};

/**
 * Every single-constraint violation of a schema, each breaking exactly one rule of one member and
 * keeping everything else valid. Nullable members (anyOf with null) are broken on their non-null side.
 */
export function violationsOf(schema: JsonSchema, path: string[] = []): Violation[] {
  const out: Violation[] = [];
  const at = (constraint: string, value: unknown) =>
    out.push({ path, constraint: `${path.join('.') || '(body)'}: ${constraint}`, value });
  if (schema.anyOf) {
    const nonNull = schema.anyOf.filter((branch) => branch.type !== 'null' && branch.const === undefined);
    if (nonNull.length === 1) return violationsOf(nonNull[0], path);
    if (schema.anyOf.every((branch) => branch.const !== undefined))
      at('not one of the allowed values', '__not_allowed__');
    return out;
  }
  if (schema.enum) at('not in enum', '__not_in_enum__');
  if (schema.type && WRONG_TYPE[schema.type] !== undefined) at(`type ${schema.type}`, WRONG_TYPE[schema.type]);
  if (schema.type === 'integer') at('integer', 1.5);
  if (schema.minLength !== undefined && schema.minLength > 0)
    at(`minLength ${schema.minLength}`, '7'.repeat(schema.minLength - 1));
  if (schema.maxLength !== undefined) at(`maxLength ${schema.maxLength}`, '7'.repeat(schema.maxLength + 1));
  if (schema.pattern && !new RegExp(schema.pattern).test('~~~')) at(`pattern ${schema.pattern}`, '~~~');
  if (schema.format === 'email') at('format email', 'not-an-email');
  if (schema.format === 'date-time') at('format date-time', '2026-13-45 25:61');
  if (schema.minimum !== undefined) at(`minimum ${schema.minimum}`, schema.minimum - 1);
  if (schema.exclusiveMinimum !== undefined) at(`exclusiveMinimum ${schema.exclusiveMinimum}`, schema.exclusiveMinimum);
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER)
    at(`maximum ${schema.maximum}`, schema.maximum + 1);
  if (schema.type === 'object') {
    for (const name of schema.required ?? [])
      out.push({ path: [...path, name], constraint: `${[...path, name].join('.')}: required`, remove: true });
    for (const [name, sub] of Object.entries(schema.properties ?? {})) out.push(...violationsOf(sub, [...path, name]));
    if (schema.maxProperties !== undefined) {
      at(
        `maxProperties ${schema.maxProperties}`,
        Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`k${i}`, 'v'])),
      );
    }
  }
  return out;
}

/** The value with one violation applied (a deep copy; the original is untouched). */
export function applyViolation(value: unknown, violation: Violation): unknown {
  if (violation.path.length === 0) return violation.value;
  const copy = structuredClone(value) as Record<string, any>;
  let node = copy;
  for (const key of violation.path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key];
  }
  const last = violation.path[violation.path.length - 1];
  if (violation.remove) delete node[last];
  else node[last] = violation.value;
  return copy;
}
