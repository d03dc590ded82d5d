import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SOURCES, mirrorDir, render } from '../../simulators/openapi/trim.js';

// The trimmed documents are what the simulators are held to: each names its source, keeps exactly
// the operations listed in trim.ts, and is self-contained (every $ref resolves inside it).

const read = (file: string) => readFileSync(new URL(`../../simulators/openapi/${file}`, import.meta.url), 'utf8');

function refs(node: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) node.forEach((child) => refs(child, found));
  else if (node && typeof node === 'object') {
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string') found.add(child);
      else refs(child, found);
    }
  }
  return found;
}

function resolves(doc: unknown, ref: string): boolean {
  let node: unknown = doc;
  for (const raw of ref.replace(/^#\//, '').split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object' || !(key in node)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

describe.each(Object.entries(SOURCES))('trimmed document %s', (name, source) => {
  const doc = JSON.parse(read(source.out));

  it('names its source repository, commit and path', () => {
    expect(doc['x-source']).toEqual({ repository: source.repository, commit: source.commit, path: source.path });
  });

  it('keeps exactly the operations and webhooks we use', () => {
    const operations = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item as object)
        .filter((method) => method !== 'parameters')
        .map((method) => [path, method]),
    );
    expect(operations.sort()).toEqual([...(source.operations ?? [])].sort());
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...(source.webhooks ?? [])].sort());
    for (const schema of source.schemas ?? []) expect(doc.components.schemas[schema]).toBeDefined();
  });

  it('is closed under $ref', () => {
    const dangling = [...refs(doc)].filter((ref) => !ref.startsWith('#/') || !resolves(doc, ref));
    expect(dangling).toEqual([]);
  });

  it.skipIf(!existsSync(mirrorDir(source)))('is what trim.ts makes of the pinned official document', async () => {
    expect(await render(name)).toBe(read(source.out));
  });
});
