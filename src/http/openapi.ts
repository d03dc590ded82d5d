import type { RouteOptions } from 'fastify';
import type { App } from '../context.js';
import type { Config } from '../config.js';
import { ERRORS } from '../errors.js';
import { CURRENT_API_VERSION } from './versioning.js';
import { usesProblemShape } from './errors.js';
import { checkoutBoundParam } from './route-policy.js';

type Schema = Record<string, any>;

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: string[];
    /** Left out of the OpenAPI document (internal routes). */
    hide?: boolean;
  }
}

interface CatalogEntry {
  method: string;
  url: string;
  pattern: RegExp;
  schema: Schema;
  auth: string;
  checkout: boolean;
  /** Calls a processor: declines (402) and processor failures (502) are possible answers. */
  paymentSubmission: boolean;
}

/** Every registered route, as the source of the OpenAPI document and of 405 answers. */
export class RouteCatalog {
  readonly entries: CatalogEntry[] = [];

  add(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema = (route.schema ?? {}) as Schema;
    const config = (route.config ?? {}) as { auth?: string; paymentSubmission?: boolean };
    const pattern = new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`);
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      this.entries.push({ method, url: route.url, pattern, schema, auth: config.auth ?? 'none', checkout: checkoutBoundParam(method, route.url) !== undefined, paymentSubmission: Boolean(config.paymentSubmission) });
    }
  }

  methodsFor(path: string): string[] {
    return [...new Set(this.entries.filter((e) => e.pattern.test(path)).map((e) => e.method))];
  }
}

const ErrorGuide = {
  type: 'object',
  required: ['error', 'message', 'code', 'timestamp', 'requestId'],
  properties: {
    error: { type: 'string', enum: Object.keys(ERRORS) },
    message: { type: 'string' },
    code: { type: 'string' },
    details: { type: 'object', additionalProperties: true },
    timestamp: { type: 'string', format: 'date-time' },
    requestId: { type: 'string' },
  },
};

const Problem = {
  type: 'object',
  description: 'RFC 9457 problem record',
  required: ['type', 'title', 'status', 'detail', 'instance'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    code: { type: 'string' },
    error: { type: 'string', enum: Object.keys(ERRORS) },
    details: { type: 'object', additionalProperties: true },
    requestId: { type: 'string' },
    paymentId: { type: 'integer' },
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Validation error (VALIDATION_ERROR, INVALID_FORMAT, INVALID_JSON, UNSUPPORTED_API_VERSION, …)',
  401: 'Missing or invalid credentials',
  402: 'Payment declined (CARD_DECLINED, PAYMENT_DECLINED, THREEDS_FAILED, UPI_TRANSACTION_FAILED); the failed payment is stored and named by paymentId',
  403: 'Not permitted (INSUFFICIENT_PERMISSIONS, FORBIDDEN)',
  404: 'Not found',
  409: 'Conflict with the resource state or an idempotency key in flight',
  413: 'Body over 64 KiB',
  415: 'Unsupported content type',
  422: 'Idempotency key reused with a different request',
  429: 'Rate limited or account locked (Retry-After)',
  500: 'Internal error',
  502: 'The processor failed (PROCESSOR_UNAVAILABLE); the failed payment is stored and named by paymentId',
};

function errorStatuses(entry: CatalogEntry): number[] {
  const statuses = new Set<number>([429, 500]);
  if (entry.schema.params || entry.schema.querystring) statuses.add(400);
  if (entry.schema.body) [400, 413, 415].forEach((s) => statuses.add(s));
  if (entry.auth !== 'none') [401, 403].forEach((s) => statuses.add(s));
  if (entry.schema.params) statuses.add(404);
  if (entry.method === 'POST') [409, 422].forEach((s) => statuses.add(s));
  if (entry.paymentSubmission) [402, 502].forEach((s) => statuses.add(s));
  for (const code of Object.keys(entry.schema.response ?? {})) statuses.add(Number(code));
  return [...statuses].filter((s) => s >= 400).sort();
}

function parameters(schema: Schema | undefined, location: 'path' | 'query'): Schema[] {
  if (!schema?.properties) return [];
  return Object.entries(schema.properties as Record<string, Schema>).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (schema.required ?? []).includes(name),
    schema: property,
    ...(property.description ? { description: property.description } : {}),
  }));
}

export function buildOpenApi(catalog: RouteCatalog, config: Config): Schema {
  const paths: Record<string, Schema> = {};
  for (const entry of catalog.entries) {
    if (entry.schema.hide) continue;
    const path = entry.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const responses: Schema = {};
    for (const [status, schema] of Object.entries(entry.schema.response ?? {})) {
      if (Number(status) < 400) responses[status] = { description: 'OK', content: { 'application/json': { schema } } };
    }
    for (const status of errorStatuses(entry)) {
      const authError = status === 401 || status === 403 || status === 429;
      const problem = !authError && usesProblemShape(entry.url, 'INTERNAL_ERROR');
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? 'Error',
        content: problem
          ? { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }
          : { 'application/json': { schema: { $ref: '#/components/schemas/ErrorGuide' } } },
      };
    }
    const security =
      entry.auth === 'api_key'
        ? [{ ApiKey: [] }, ...(entry.checkout ? [{ CheckoutToken: [] }] : [])]
        : entry.auth === 'user'
          ? [{ AccessToken: [] }]
          : [];
    paths[path] ??= {};
    paths[path][entry.method.toLowerCase()] = {
      summary: entry.schema.summary,
      ...(entry.schema.description ? { description: entry.schema.description } : {}),
      tags: entry.schema.tags,
      security,
      parameters: [
        ...parameters(entry.schema.params, 'path'),
        ...parameters(entry.schema.querystring, 'query'),
        { $ref: '#/components/parameters/ApiVersion' },
        ...(entry.method === 'POST' ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
      ],
      ...(entry.schema.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: entry.schema.body },
                'application/json-patch+json': { schema: entry.schema.body },
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'SVC payment gateway API',
      version: CURRENT_API_VERSION,
      description:
        'Every path is also served under /v2. Errors of /payments and /customers are problem records; all others, ' +
        'and every credential or rate-limit error, use the error-guide shape. Unknown body fields are ignored and ' +
        'named in the X-Ignored-Fields response header.',
    },
    servers: [{ url: config.publicUrl }, { url: `${config.publicUrl}/v2` }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        CheckoutToken: { type: 'apiKey', in: 'header', name: 'X-Checkout-Token' },
        AccessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      parameters: {
        ApiVersion: {
          name: 'X-API-Version',
          in: 'header',
          required: false,
          schema: { type: 'string', pattern: '^2\\.[01]$', default: CURRENT_API_VERSION },
        },
        IdempotencyKey: { name: 'X-Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } },
      },
      schemas: { ErrorGuide, Problem },
    },
  };
}

export function openApiRoutes(app: App, catalog: RouteCatalog, config: Config): void {
  let cached: { json: string; html: string } | undefined;
  const render = () => {
    if (!cached) {
      const doc = buildOpenApi(catalog, config);
      cached = { json: JSON.stringify(doc), html: referencePage(doc) };
    }
    return cached;
  };
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, async (_request, reply) =>
    reply.type('application/json').header('Cache-Control', 'public, max-age=60').send(render().json),
  );
  app.get('/docs', { schema: { hide: true }, config: { auth: 'none' } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'public, max-age=60')
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
      .send(render().html),
  );
}

const escape = (value: unknown) =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function schemaTable(schema: Schema | undefined): string {
  if (!schema?.properties) return schema?.type ? `<p><code>${escape(schema.type)}</code></p>` : '';
  const required = new Set<string>(schema.required ?? []);
  const rows = Object.entries(schema.properties as Record<string, Schema>).map(([name, p]) => {
    const limits = ['minLength', 'maxLength', 'minimum', 'maximum', 'pattern', 'format', 'enum']
      .filter((k) => p[k] !== undefined)
      .map((k) => `${k}: ${Array.isArray(p[k]) ? p[k].join(' | ') : p[k]}`)
      .join(', ');
    const type = p.type ?? (p.anyOf ? p.anyOf.map((a: Schema) => a.type ?? a.const).join(' | ') : '');
    return `<tr><td><code>${escape(name)}</code>${required.has(name) ? ' <b>required</b>' : ''}</td><td>${escape(type)}</td><td>${escape(limits)}</td><td>${escape(p.description)}</td></tr>`;
  });
  return `<table><tr><th>Field</th><th>Type</th><th>Limits</th><th></th></tr>${rows.join('')}</table>`;
}

/** A plain server-rendered reference: readable without JavaScript or third-party assets. */
function referencePage(doc: Schema): string {
  const sections: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Schema>)) {
    for (const [method, op] of Object.entries(operations as Record<string, Schema>)) {
      const auth = (op.security as Schema[]).map((s) => Object.keys(s)[0]).join(' or ') || 'none';
      const params = (op.parameters as Schema[]).filter((p) => !p.$ref);
      sections.push(`<section><h3><span class="m">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary)}</p><p>Credentials: <code>${escape(auth)}</code></p>
${params.length ? `<h4>Parameters</h4><table>${params.map((p) => `<tr><td><code>${escape(p.name)}</code> (${p.in})</td><td>${escape(p.schema?.type)}</td></tr>`).join('')}</table>` : ''}
${op.requestBody ? `<h4>Body</h4>${schemaTable(op.requestBody.content['application/json'].schema)}` : ''}
<h4>Responses</h4><ul>${Object.entries(op.responses as Schema).map(([s, r]) => `<li><b>${s}</b> ${escape(r.description)}</li>`).join('')}</ul>
${op.responses['200'] ? schemaTable(op.responses['200'].content['application/json'].schema) : ''}</section>`);
    }
  }
  const errors = Object.entries(ERRORS)
    .map(([name, e]) => `<tr id="error-${name}"><td><code>${name}</code></td><td><code>${e.code}</code></td><td>${e.status}</td><td>${escape(e.title)}</td></tr>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
table{border-collapse:collapse;width:100%;margin:.5rem 0}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
section{border-top:1px solid #eee;padding-top:.5rem}.m{background:#1f4fd1;color:#fff;border-radius:4px;padding:1px 6px;font-size:13px}</style></head>
<body><h1>${escape(doc.info.title)} <small>v${escape(doc.info.version)}</small></h1><p>${escape(doc.info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a></p>
<h2>Authentication</h2><p><code>X-API-Key: svc_test_sk_…</code> from your server; <code>X-Checkout-Token</code> from the hosted checkout; <code>Authorization: Bearer</code> only for the control-panel API.</p>
<h2>Endpoints</h2>${sections.join('\n')}
<h2 id="errors">Errors</h2><table><tr><th>error</th><th>code</th><th>status</th><th>meaning</th></tr>${errors}</table></body></html>`;
}
