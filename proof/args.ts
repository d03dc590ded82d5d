/** `--name value` or `--name=value` options of the proof commands, with integer defaults. */
export function integerOptions<T extends Record<string, number>>(argv: string[], defaults: T): T {
  const out: Record<string, number> = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!match || !(match[1] in defaults))
      throw new Error(
        `unknown option ${argv[i]} (known: ${Object.keys(defaults)
          .map((k) => `--${k}`)
          .join(' ')})`,
      );
    const raw = match[2] ?? argv[++i];
    if (!/^\d+$/.test(raw ?? '')) throw new Error(`--${match[1]} needs a non-negative integer (got "${raw}")`);
    out[match[1]] = Number(raw);
  }
  return out as T;
}
