import { existsSync } from 'node:fs';

/**
 * A trimmed document under simulators/openapi/, found from the sources (tsx, vitest) and from the
 * build (dist/simulators/…), which tsc writes without the JSON files.
 */
export function documentUrl(file: string): URL {
  const beside = new URL(`../openapi/${file}`, import.meta.url);
  return existsSync(beside) ? beside : new URL(`../../../simulators/openapi/${file}`, import.meta.url);
}
