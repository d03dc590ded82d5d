/**
 * JSON text in which every object's members come in sorted order, so equal values give equal text
 * whatever order or spacing they arrived in. `replace` works as JSON.stringify's replacer: it sees
 * each member (key, value) and returns what is written instead, `undefined` to leave the member out.
 * `undefined` as a whole (no body) is the empty string.
 */
export function canonicalJson(value: unknown, replace: (key: string, value: unknown) => unknown = keep): string {
  return (
    JSON.stringify(value, (key, member: unknown) => {
      const replaced = replace(key, member);
      if (replaced === null || typeof replaced !== 'object' || Array.isArray(replaced)) return replaced;
      const record = replaced as Record<string, unknown>;
      // No prototype: a member named "__proto__" stays a member.
      const sorted = Object.create(null) as Record<string, unknown>;
      for (const name of Object.keys(record).sort()) sorted[name] = record[name];
      return sorted;
    }) ?? ''
  );
}

const keep = (_key: string, value: unknown) => value;
