import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/database.js';
import { buildOnce, ROOT, run } from '../helpers/processes.js';

/**
 * The production install (docs/operations-install.md): the built gateway needs none of the development
 * dependencies. Cheap: every module the entry points (the server and the operator CLI) load, read from
 * the build, imports only production dependencies. Whole: scripts/check-production-install.sh installs
 * the production dependencies alone into a copy of the build and starts it with NODE_ENV=production.
 */
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<
  'dependencies' | 'devDependencies' | 'optionalDependencies',
  Record<string, string>
>;
const ENTRY_POINTS = ['dist/src/main.js', 'dist/src/cli.js'];

/** The package a bare specifier names ('@scope/name/sub' → '@scope/name'); undefined for Node's own. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) return undefined;
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/** Every built module the entry points load (static and literal dynamic imports), and the packages each imports. */
function importGraph(): { modules: number; packages: Map<string, string> } {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const pending = ENTRY_POINTS.map((entry) => path.join(ROOT, entry));
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (fileName.startsWith('.')) pending.push(path.resolve(path.dirname(file), fileName));
      else {
        const name = packageOf(fileName);
        if (name && !packages.has(name)) packages.set(name, path.relative(ROOT, file));
      }
    }
  }
  return { modules: seen.size, packages };
}

describe('the production install', () => {
  beforeAll(() => buildOnce());

  it('loads no development dependency from any module of the server or the CLI', () => {
    const { modules, packages } = importGraph();
    expect(modules).toBeGreaterThan(100);
    expect(packages.get('fastify')).toBe('dist/src/app.js');
    const production = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies)]);
    const outside = [...packages].filter(([name]) => !production.has(name)).map(([name, from]) => `${name} (${from})`);
    expect(outside).toEqual([]);
    // The check can fail: development dependencies exist, and none is also a production one.
    expect(Object.keys(pkg.devDependencies)).toContain('typescript');
    expect(Object.keys(pkg.devDependencies).filter((name) => production.has(name))).toEqual([]);
  });

  it(
    'starts with NODE_ENV=production from the build and the production dependencies alone',
    { timeout: 150_000 },
    async () => {
      const result = await run('bash', ['scripts/check-production-install.sh'], {
        DATABASE_URL: await freshDatabaseUrl(),
      });
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('/healthz 200');
      expect(result.stdout).toContain('/readyz 200');
      expect(result.stdout).toContain('started with NODE_ENV=production without development dependencies');
    },
  );
});
