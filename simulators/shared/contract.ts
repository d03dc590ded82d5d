import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type Json, type JsonObject, isObject, text } from './json.js';

// ajv-formats is CommonJS with a default export; under NodeNext the callable is one level down.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface Violation {
  /** `request` (the caller broke the contract), `response` or `webhook` (the simulator did: a bug). */
  direction: 'request' | 'response' | 'webhook';
  /** "POST /v1/payment_intents", or the webhook's name. */
  operation: string;
  errors: string[];
}

export interface Operation {
  /** "POST /v1/payment_intents" */
  key: string;
  method: string;
  template: string;
  names: string[];
  pattern: RegExp;
  /** Request body media type the document names (first one), if any. */
  contentType?: string;
  body?: () => ValidateFunction;
  bodyRequired: boolean;
  bodySchema?: Json;
  query: () => ValidateFunction;
  /** The query parameters as one object schema (to read decoded values by). */
  querySchema: JsonObject;
  headers: () => ValidateFunction;
  /** Lower-cased names of the header parameters the document declares. */
  headerNames: string[];
  pathParams: () => ValidateFunction;
  /** Documented statuses ("200", "default", …) → the answer's validator (undefined: no JSON body). */
  responses: Map<string, (() => ValidateFunction) | undefined>;
}

export interface RequestParts {
  params: Record<string, string>;
  query: JsonObject;
  headers: Record<string, string | string[] | undefined>;
  /** Decoded body; undefined when the request had none. */
  body: Json | undefined;
}

/**
 * OpenAPI 3.0's `nullable: true` as plain JSON Schema: ajv only accepts `nullable` beside a `type`,
 * and Stripe also puts it beside `anyOf` and `enum` (where null is not among the values).
 */
function withoutNullable(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutNullable);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'nullable' && typeof child === 'boolean') continue;
    out[key] = withoutNullable(child);
  }
  if (value.nullable !== true) return out;
  const annotations: JsonObject = {};
  for (const key of ['description', 'title']) {
    if (key in out) {
      annotations[key] = out[key];
      delete out[key];
    }
  }
  return { ...annotations, anyOf: [out, { type: 'null' }] };
}

const loaded = new Map<string, Contract>();

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

export function formatErrors(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((error) => {
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
        : error.keyword === 'enum'
          ? ` (${JSON.stringify((error.params as { allowedValues?: Json }).allowedValues)})`
          : '';
    return `${where}${error.instancePath} ${error.message ?? error.keyword}${extra}`;
  });
}

/**
 * One trimmed OpenAPI document, compiled: finds the operation a request is for and validates its
 * parameters, body and every answer against the document with ajv. Unknown `x-` keywords and
 * OpenAPI-only members are ignored (ajv's strict mode off); formats are checked.
 */
export class Contract {
  readonly doc: JsonObject;
  readonly basePath: string;
  readonly operations: Operation[] = [];
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  /** One compiled contract per document and process: simulators started by many tests share it. */
  static load(file: URL): Contract {
    let contract = loaded.get(file.href);
    if (!contract) loaded.set(file.href, (contract = new Contract(file)));
    return contract;
  }

  constructor(file: URL) {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as JsonObject;
    this.doc = withoutNullable(raw) as JsonObject;
    const v31 = text(this.doc.openapi).startsWith('3.1');
    const options = { strict: false, allErrors: true, validateFormats: true } as const;
    this.ajv = v31 ? new Ajv2020(options) : new Ajv(options);
    addFormats(this.ajv);
    // Stripe's own formats: a Unix timestamp (an integer) and a decimal string.
    this.ajv.addFormat('unix-time', { type: 'number', validate: (n: number) => Number.isInteger(n) });
    this.ajv.addFormat('decimal', { type: 'string', validate: (s: string) => /^-?\d+(\.\d+)?$/.test(s) });
    this.ajv.addSchema(this.doc, 'doc');
    const server = (this.doc.servers as JsonObject[] | undefined)?.[0]?.url;
    this.basePath = typeof server === 'string' ? new URL(server).pathname.replace(/\/+$/, '') : '';
    for (const [template, item] of Object.entries((this.doc.paths as JsonObject | undefined) ?? {})) {
      if (!isObject(item)) continue;
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        if (isObject(item[method])) this.operations.push(this.compile(template, method, item));
      }
    }
    // Literal segments win over templated ones.
    this.operations.sort((a, b) => a.names.length - b.names.length);
  }

  /** The schema at a JSON pointer into the document, compiled (refs resolve against the document). */
  validator(pointer: string): ValidateFunction {
    return this.ajv.compile({ $ref: `doc#${pointer}` });
  }

  schema(name: string): ValidateFunction {
    return this.lazy(`/components/schemas/${escape(name)}`)();
  }

  /** A validator compiled on first use and kept: compiling Stripe's object graph takes seconds. */
  lazy(pointer: string): () => ValidateFunction {
    return () => {
      let validate = this.compiled.get(pointer);
      if (!validate) this.compiled.set(pointer, (validate = this.validator(pointer)));
      return validate;
    };
  }

  /** Compiles every operation's validators now rather than on first use (Stripe's take seconds). */
  warm(): void {
    for (const operation of this.operations) {
      operation.body?.();
      operation.query();
      operation.headers();
      operation.pathParams();
      for (const validate of operation.responses.values()) validate?.();
    }
  }

  /** Follows local `$ref`s to the schema they name. */
  resolve(schema: Json | undefined): JsonObject | undefined {
    let node = schema;
    for (let hops = 0; isObject(node) && typeof node.$ref === 'string' && hops < 20; hops++) {
      let target: Json | undefined = this.doc;
      for (const raw of node.$ref.replace(/^#\//, '').split('/')) {
        const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        target = isObject(target) ? target[key] : undefined;
      }
      node = target;
    }
    return isObject(node) ? node : undefined;
  }

  match(method: string, pathname: string): { operation: Operation; params: Record<string, string> } | undefined {
    if (!pathname.startsWith(this.basePath)) return undefined;
    const rest = pathname.slice(this.basePath.length);
    for (const operation of this.operations) {
      if (operation.method !== method.toLowerCase()) continue;
      const found = operation.pattern.exec(rest);
      if (!found) continue;
      const params: Record<string, string> = {};
      operation.names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1])));
      return { operation, params };
    }
    return undefined;
  }

  /** Every way the request breaks the document; empty when it keeps it. */
  validateRequest(operation: Operation, parts: RequestParts): string[] {
    const errors: string[] = [];
    const pathParams = operation.pathParams();
    if (!pathParams(parts.params)) errors.push(...formatErrors(pathParams.errors, 'path'));
    const query = operation.query();
    if (!query(parts.query)) errors.push(...formatErrors(query.errors, 'query'));
    const headers: Record<string, string> = {};
    for (const name of operation.headerNames) {
      const value = parts.headers[name];
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const headerCheck = operation.headers();
    if (!headerCheck(headers)) errors.push(...formatErrors(headerCheck.errors, 'header'));
    if (operation.body) {
      const body = operation.body();
      if (parts.body === undefined) {
        if (operation.bodyRequired) errors.push('body is required');
      } else if (!body(parts.body)) {
        errors.push(...formatErrors(body.errors, 'body'));
      }
    } else if (parts.body !== undefined && !(isObject(parts.body) && Object.keys(parts.body).length === 0)) {
      errors.push('body: the operation takes none');
    }
    return errors;
  }

  /** Every way an answer breaks the document (an undocumented status included). */
  validateResponse(operation: Operation, status: number, body: Json | undefined): string[] {
    const key = operation.responses.has(String(status)) ? String(status) : 'default';
    if (!operation.responses.has(key)) return [`status ${status} is not documented`];
    const validate = operation.responses.get(key)?.();
    if (!validate) return body === undefined ? [] : [`status ${status} documents no body`];
    return validate(body) ? [] : formatErrors(validate.errors, `response ${status}`);
  }

  /** Whether the document describes this status for the operation (or a default answer). */
  documents(operation: Operation, status: number): boolean {
    return operation.responses.has(String(status)) || operation.responses.has('default');
  }

  private compile(template: string, method: string, item: JsonObject): Operation {
    const op = item[method] as JsonObject;
    const pointer = `/paths/${escape(template)}/${method}`;
    const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const pattern = new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '([^/]+)')}/?$`,
    );
    const parameters = [...((item.parameters as Json[] | undefined) ?? []), ...((op.parameters as Json[]) ?? [])]
      .map((p) => this.resolve(p))
      .filter((p): p is JsonObject => p !== undefined);
    const group = (where: string, closed: boolean, lower: boolean) => () => {
      const chosen = parameters.filter((p) => p.in === where);
      const name = (p: JsonObject) => (lower ? text(p.name).toLowerCase() : text(p.name));
      return this.ajv.compile({
        type: 'object',
        properties: Object.fromEntries(chosen.map((p) => [name(p), this.inline(p.schema)])),
        required: chosen.filter((p) => p.required === true).map(name),
        ...(closed ? { additionalProperties: false } : {}),
      });
    };
    const requestBody = this.resolve(op.requestBody);
    const content = isObject(requestBody?.content) ? requestBody.content : undefined;
    const contentType = content ? Object.keys(content)[0] : undefined;
    const bodySchema = contentType && content ? (content[contentType] as JsonObject).schema : undefined;
    const responses = new Map<string, (() => ValidateFunction) | undefined>();
    for (const [status, response] of Object.entries((op.responses as JsonObject | undefined) ?? {})) {
      const resolved = this.resolve(response);
      const media = isObject(resolved?.content) ? resolved.content['application/json'] : undefined;
      responses.set(
        status,
        isObject(media) && media.schema !== undefined
          ? this.lazy(`${pointer}/responses/${escape(status)}/content/application~1json/schema`)
          : undefined,
      );
    }
    return {
      key: `${method.toUpperCase()} ${template}`,
      method,
      template,
      names,
      pattern,
      contentType,
      body:
        bodySchema !== undefined && contentType
          ? this.lazy(`${pointer}/requestBody/content/${escape(contentType)}/schema`)
          : undefined,
      bodyRequired: requestBody?.required === true,
      bodySchema,
      // Query parameters the document does not name are refused, as the processors do.
      query: once(group('query', true, false)),
      querySchema: {
        type: 'object',
        properties: Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [text(p.name), p.schema])),
      },
      headers: once(group('header', false, true)),
      headerNames: parameters.filter((p) => p.in === 'header').map((p) => text(p.name).toLowerCase()),
      pathParams: once(group('path', true, false)),
      responses,
    };
  }

  /** A parameter schema with its `$ref`s pointed into the document, for a schema compiled on its own. */
  private inline(schema: Json | undefined): Json {
    if (Array.isArray(schema)) return schema.map((s) => this.inline(s));
    if (!isObject(schema)) return schema ?? {};
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(schema)) {
      out[key] =
        key === '$ref' && typeof child === 'string' && child.startsWith('#') ? `doc${child}` : this.inline(child);
    }
    return out;
  }
}
