import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * Migrations are written expand-then-contract (docs/operations.md, "Upgrades"): during a rolling
 * deploy the instances still running the previous release read the schema the new release migrated,
 * so a migration's `up` never drops or renames a column or table the previous release reads. Adding
 * comes first, in one release; removing what nothing reads any more comes in a later one. A removal
 * is allowed only when listed below with the reason no running release reads it.
 */
const ALLOWED: Record<string, string[]> = {
  // Never written nor read by any release (deliveries have their own table).
  '0019_fewer_index_entries': ['drop column delivered_at'],
  // The relay of the release before still set queued_at: instances upgraded together (before this rule).
  '0021_outbox_queue': ['drop column queued_at'],
  // Dropped and made anew with the same name in the same migration: throttling state that lasts minutes.
  '0024_sign_in_and_passwords': ["droptable('login_failures')"],
};

const DESTRUCTIVE = [
  /drop\s+column\s+(?:if\s+exists\s+)?\w+/gi,
  /drop\s+table\s+(?:if\s+exists\s+)?\w+/gi,
  /rename\s+(?:column\s+)?\w+\s+to\s+\w+/gi,
  /rename\s+to\s+\w+/gi,
  /\.dropColumn\(\s*'[^']+'\s*\)/gi,
  /\.dropTable\(\s*'[^']+'\s*\)/gi,
  /\.renameColumn\([^)]*\)/gi,
  /\.renameTo\([^)]*\)/gi,
];

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/storage/migrations');

/** The text of a migration's `up` (its `down` undoes, and may drop what `up` added). */
function upOf(source: string): string {
  const start = source.indexOf('export async function up');
  if (start < 0) return '';
  const end = source.indexOf('export async function down', start);
  return source.slice(start, end < 0 ? undefined : end);
}

/** Each destructive statement, lower-cased with its spacing and quotes normalised: "drop column x". */
function destructiveStatements(source: string): string[] {
  const up = upOf(source).replace(/\s+/g, ' ');
  return DESTRUCTIVE.flatMap((pattern) =>
    [...up.matchAll(pattern)].map((m) => m[0].toLowerCase().replace(/\s+/g, ' ')),
  ).map((s) => s.replace(/\.droptable\(\s*/, 'droptable(').replace(/\.dropcolumn\(\s*/, 'dropcolumn('));
}

it('no migration drops or renames a column or table unless allowed with its reason', () => {
  const found: string[] = [];
  for (const file of readdirSync(dir).filter((f) => /^\d{4}_.*\.ts$/.test(f))) {
    const name = file.replace(/\.ts$/, '');
    for (const statement of destructiveStatements(readFileSync(path.join(dir, file), 'utf8')))
      if (!(ALLOWED[name] ?? []).includes(statement)) found.push(`${name}: ${statement}`);
  }
  expect(found, 'write the migration expand-then-contract, or list it in ALLOWED with the reason').toEqual([]);
});

it('recognises each way a migration can drop or rename', () => {
  const up = (body: string) =>
    `export async function up(db) {\n${body}\n}\nexport async function down(db) { drop table x; }`;
  expect(destructiveStatements(up('await sql`alter table payments drop column amount`.execute(db);'))).toEqual([
    'drop column amount',
  ]);
  expect(destructiveStatements(up('await sql`alter table payments rename column amount to total`'))).toEqual([
    'rename column amount to total',
  ]);
  expect(destructiveStatements(up("await db.schema.alterTable('p').dropColumn('amount').execute();"))).toEqual([
    "dropcolumn('amount')",
  ]);
  expect(destructiveStatements(up("await db.schema.alterTable('p').renameColumn('a', 'b').execute();"))).toEqual([
    ".renamecolumn('a', 'b')",
  ]);
  expect(destructiveStatements(up('await sql`drop table if exists refunds`'))).toEqual([
    'drop table if exists refunds',
  ]);
  expect(destructiveStatements(up('await sql`alter table refunds rename to returns`'))).toEqual(['rename to returns']);
  // What `down` does is not checked.
  expect(destructiveStatements(up(''))).toEqual([]);
});
