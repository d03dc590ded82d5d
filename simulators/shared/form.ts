import { type Json, type JsonObject, isObject } from './json.js';

/**
 * Stripe's request encoding: application/x-www-form-urlencoded with bracket notation
 * (`metadata[order]=7`, `expand[0]=latest_charge`, `card[exp_month]=12`), as its SDKs write it.
 * Decoded into nested objects of strings; `typed` then reads them as the schema says.
 */
export function decodeForm(text: string): JsonObject {
  const root: JsonObject = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const found = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!found) {
      root[key] = value;
      continue;
    }
    const path = [found[1], ...[...found[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
    let node: JsonObject = root;
    path.forEach((segment, i) => {
      // `a[]=x` appends: give it the next index.
      const name = segment === '' ? String(Object.keys(node).length) : segment;
      if (i === path.length - 1) {
        node[name] = value;
      } else {
        if (!isObject(node[name])) node[name] = {};
        node = node[name];
      }
    });
  }
  return root;
}

type Resolve = (schema: Json | undefined) => JsonObject | undefined;

function kind(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function fits(value: Json, schema: JsonObject): boolean {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (Array.isArray(schema.enum) && !schema.enum.some((allowed) => allowed === value)) return false;
  if (types.length === 0) return true;
  const actual = kind(value);
  return types.some(
    (type) => type === actual || (type === 'integer' && actual === 'number' && Number.isInteger(value)),
  );
}

/**
 * Reads a decoded form value as the schema describes it: "12" as 12 where an integer is expected,
 * "true" as a boolean, `{ "0": …, "1": … }` as an array. Anything that does not read cleanly stays
 * a string, so that validation reports it (`amount=abc` stays "abc" and fails `type: integer`).
 */
export function typed(value: Json, schema: Json | undefined, resolve: Resolve): Json {
  const s = resolve(schema);
  if (!s) return value;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      const b = resolve(branch);
      if (!b) continue;
      const read = typed(value, b, resolve);
      if (fits(read, b)) return read;
    }
    return value;
  }
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (isObject(value)) {
    if (types.includes('array')) {
      const keys = Object.keys(value);
      if (keys.every((k) => /^\d+$/.test(k))) {
        return keys.sort((a, b) => Number(a) - Number(b)).map((k) => typed(value[k], s.items, resolve));
      }
      return value;
    }
    const properties = isObject(s.properties) ? s.properties : {};
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = typed(
        v,
        k in properties ? properties[k] : isObject(s.additionalProperties) ? s.additionalProperties : undefined,
        resolve,
      );
    }
    return out;
  }
  if (typeof value === 'string') {
    if (types.includes('integer') && /^-?\d+$/.test(value)) return Number(value);
    if (types.includes('number') && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
    if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  }
  return value;
}
