import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKOUT_TOKEN_ROUTES } from '../../src/http/route-policy.js';

/** The routes listed under a heading of docs/decisions.md, as "METHOD /path/{param}". */
function listedUnder(heading: string): string[] {
  const text = readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8');
  const section = text.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`docs/decisions.md has no section "${heading}"`);
  return [...section.matchAll(/^- `(GET|POST|PUT|PATCH|DELETE) (\S+)`/gm)].map(
    ([, method, path]) => `${method} ${path}`,
  );
}

describe('route policy', () => {
  it('lets checkout session tokens call exactly the routes decisions.md allows', () => {
    const inCode = CHECKOUT_TOKEN_ROUTES.map((route) => `${route.method} ${route.url.replace(/:(\w+)/g, '{$1}')}`);
    expect(inCode.sort()).toEqual(listedUnder('Checkout session token allow-list').sort());
  });
});
