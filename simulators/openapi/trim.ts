/**
 * Trims a processor's official OpenAPI document to the operations our connectors use and every
 * component they reach ($ref closure), and stamps it with where it came from (`x-source`).
 *
 * Re-run (all three documents, or the ones named):
 *
 *   npx tsx simulators/openapi/trim.ts [stripe] [adyen-checkout] [adyen-webhooks]
 *
 * The sources are read from local git clones of the official repositories at the pinned commits
 * below: `$OPENAPI_MIRRORS/<owner>+<name>/repo` (default /work/.mirror), or any clone given as
 * `--git-dir <dir>` (one name at a time). To move to a newer document, change `commit` (and `path`),
 * re-run, and re-run test/simulators/: a changed contract shows up as violations there.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'prettier';
import { type Json, type JsonObject, isObject } from '../shared/json.js';

export interface Source {
  repository: string;
  commit: string;
  path: string;
  /** Directory name of the clone under $OPENAPI_MIRRORS. */
  mirror: string;
  out: string;
  /** [path, method] pairs kept from `paths`. */
  operations?: [string, string][];
  /** Names kept from `webhooks` (OpenAPI 3.1). */
  webhooks?: string[];
  /** Component schemas kept even if no kept operation reaches them. */
  schemas?: string[];
}

export const SOURCES: Record<string, Source> = {
  // The newest spec3.json under 4 MiB in the mirror (API version 2020-08-27); see README.md.
  stripe: {
    repository: 'https://github.com/stripe/openapi',
    commit: 'e0123a38b40c8d840b4c0469ac0ee1650b6bfea3',
    path: 'openapi/spec3.json',
    mirror: 'stripe+openapi',
    out: 'stripe.json',
    operations: [
      ['/v1/payment_methods', 'post'],
      ['/v1/payment_intents', 'post'],
      ['/v1/payment_intents/{intent}', 'get'],
      ['/v1/payment_intents/{intent}/confirm', 'post'],
      ['/v1/payment_intents/{intent}/capture', 'post'],
      ['/v1/payment_intents/{intent}/cancel', 'post'],
      ['/v1/refunds', 'post'],
      ['/v1/refunds/{refund}', 'get'],
    ],
    schemas: ['event'],
  },
  // v72: the Checkout API version @adyen/api-library 32 calls (its services use /v72 paths).
  'adyen-checkout': {
    repository: 'https://github.com/Adyen/adyen-openapi',
    commit: 'aa014f0cbdb58ff5c44a2ff9d5fe734642210aff',
    path: 'json/CheckoutService-v72.json',
    mirror: 'Adyen+adyen-openapi',
    out: 'adyen-checkout-v72.json',
    operations: [
      ['/payments', 'post'],
      ['/payments/details', 'post'],
      ['/payments/{paymentPspReference}/captures', 'post'],
      ['/payments/{paymentPspReference}/cancels', 'post'],
      ['/payments/{paymentPspReference}/refunds', 'post'],
    ],
  },
  'adyen-webhooks': {
    repository: 'https://github.com/Adyen/adyen-openapi',
    commit: 'aa014f0cbdb58ff5c44a2ff9d5fe734642210aff',
    path: 'json/Webhooks-v1.json',
    mirror: 'Adyen+adyen-openapi',
    out: 'adyen-webhooks-v1.json',
    webhooks: ['/AUTHORISATION', '/CAPTURE', '/CANCELLATION', '/REFUND', '/CHARGEBACK'],
    schemas: ['NotificationRequest'],
  },
};

/**
 * Drops OpenAPI `examples` maps (sample payloads, not contract) and collects every local $ref.
 * JSON Schema's own `examples` keyword is an array and stays.
 */
function strip(value: Json, refs: Set<string>): Json {
  if (Array.isArray(value)) return value.map((item) => strip(item, refs));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'examples' && isObject(child)) continue;
    if (key === '$ref' && typeof child === 'string' && child.startsWith('#/')) refs.add(child);
    out[key] = strip(child, refs);
  }
  return out;
}

function pointer(doc: JsonObject, ref: string): Json | undefined {
  let node: Json | undefined = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[key] : undefined;
  }
  return node;
}

export function trim(doc: JsonObject, source: Source): JsonObject {
  const refs = new Set<string>();
  const out: JsonObject = {
    openapi: doc.openapi,
    info: doc.info,
    'x-source': { repository: source.repository, commit: source.commit, path: source.path },
  };
  if (doc.servers) out.servers = doc.servers;
  if (doc.security) out.security = doc.security;

  const pick = (section: 'paths' | 'webhooks', key: string, method: string | undefined) => {
    const item = (doc[section] as JsonObject | undefined)?.[key];
    if (!isObject(item)) throw new Error(`${source.path}: no ${section} entry ${key}`);
    const kept = method
      ? { [method]: item[method], ...(item.parameters ? { parameters: item.parameters } : {}) }
      : item;
    if (method && !isObject(item[method])) throw new Error(`${source.path}: no ${method.toUpperCase()} ${key}`);
    const target = isObject(out[section]) ? out[section] : (out[section] = {});
    target[key] = { ...(isObject(target[key]) ? target[key] : {}), ...(strip(kept, refs) as JsonObject) };
  };
  for (const [key, method] of source.operations ?? []) pick('paths', key, method);
  for (const key of source.webhooks ?? []) pick('webhooks', key, undefined);
  for (const name of source.schemas ?? []) refs.add(`#/components/schemas/${name}`);

  // The closure: every component a kept component refers to, until nothing new turns up.
  const components: Record<string, JsonObject> = {};
  const done = new Set<string>();
  const securitySchemes = (doc.components as JsonObject | undefined)?.securitySchemes;
  if (securitySchemes) components.securitySchemes = strip(securitySchemes, refs) as JsonObject;
  while (refs.size > done.size) {
    for (const ref of [...refs]) {
      if (done.has(ref)) continue;
      done.add(ref);
      const match = /^#\/components\/([^/]+)\/(.+)$/.exec(ref);
      const target = pointer(doc, ref);
      if (!match || target === undefined) throw new Error(`${source.path}: unresolved $ref ${ref}`);
      const [, kind, name] = match;
      (components[kind] ??= {})[name.replace(/~1/g, '/').replace(/~0/g, '~')] = strip(target, refs);
    }
  }
  out.components = Object.fromEntries(
    Object.entries(components)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, entries]) => [
        kind,
        Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b))),
      ]),
  );
  return out;
}

export function mirrorDir(source: Source): string {
  return path.join(process.env.OPENAPI_MIRRORS ?? '/work/.mirror', source.mirror, 'repo');
}

function readSource(source: Source, gitDir: string | undefined): JsonObject {
  const text = execFileSync(
    'git',
    ['--git-dir', gitDir ?? mirrorDir(source), 'show', `${source.commit}:${source.path}`],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return JSON.parse(text) as JsonObject;
}

/** The trimmed document's text, as committed: the official one read from git, trimmed, formatted. */
export async function render(name: string, gitDir?: string): Promise<string> {
  const source = SOURCES[name];
  if (!source) throw new Error(`unknown document ${name}; known: ${Object.keys(SOURCES).join(', ')}`);
  return format(JSON.stringify(trim(readSource(source, gitDir), source)), { parser: 'json', printWidth: 120 });
}

async function main(argv: string[]): Promise<void> {
  const selected: string[] = [];
  let gitDir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--git-dir') gitDir = argv[++i];
    else selected.push(argv[i]);
  }
  if (selected.length === 0) selected.push(...Object.keys(SOURCES));
  if (gitDir && selected.length !== 1) throw new Error('--git-dir reads one clone: name one document');
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const name of selected) {
    const text = await render(name, gitDir);
    writeFileSync(path.join(here, SOURCES[name].out), text);
    console.log(`${SOURCES[name].out}: ${text.length} bytes`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
