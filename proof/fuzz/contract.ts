import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from './arbitraries.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** `POST /payments/h2h/{id}` */
  id: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** The application/json body schema, when the operation takes a body. */
  body?: JsonSchema;
  bodyTypes: string[];
  security: string[];
  /** Documented status → documented content types. */
  responses: Record<string, string[]>;
}

export interface ResponseCheck {
  /** Why the answer breaks the contract, or undefined when it keeps it. */
  (operation: Operation, status: number, contentType: string | null, body: unknown): string | undefined;
}

/**
 * A schema of the document with every `$ref` into it replaced by what it names, deeply: the document
 * names each body as a component (src/http/openapi-components.ts), and a reader of one body wants it whole.
 */
export function dereference(doc: any, schema: any): any {
  if (Array.isArray(schema)) return schema.map((item) => dereference(doc, item));
  if (typeof schema !== 'object' || schema === null) return schema;
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/'))
    return dereference(
      doc,
      schema.$ref
        .split('/')
        .slice(1)
        .reduce((node: any, key: string) => node[key], doc),
    );
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, dereference(doc, value)]));
}

/** The operations of an OpenAPI document, parameters and body schemas resolved. */
export function operationsOf(doc: any): Operation[] {
  const resolve = (ref: any) =>
    ref.$ref
      ? ref.$ref
          .split('/')
          .slice(1)
          .reduce((node: any, key: string) => node[key], doc)
      : ref;
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const content = op.requestBody?.content ?? {};
      out.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []).map(resolve),
        body: dereference(doc, content['application/json']?.schema),
        bodyTypes: Object.keys(content),
        security: (op.security ?? []).flatMap((entry: object) => Object.keys(entry)),
        responses: Object.fromEntries(
          Object.entries<any>(op.responses).map(([status, r]) => [status, Object.keys(r.content ?? {})]),
        ),
      });
    }
  }
  return out;
}

/**
 * Checks an answer against the document: its status is documented for the operation, its content
 * type is one documented for that status, and its body validates against that status's schema.
 */
export function responseChecker(doc: any): ResponseCheck {
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (op: Operation, status: string, type: string) => {
    const key = `${op.id} ${status} ${type}`;
    let validate = validators.get(key);
    if (!validate) {
      const schema = doc.paths[op.path][op.method.toLowerCase()].responses[status].content[type].schema ?? {};
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
      validators.set(key, validate);
    }
    return validate;
  };
  return (op, status, contentType, body) => {
    const documented = op.responses[String(status)];
    if (!documented) return `status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')})`;
    if (documented.length === 0) return undefined;
    const type = documented.find((t) => contentType?.toLowerCase().startsWith(t));
    if (!type)
      return `content type ${contentType} is not documented for ${status} (documented: ${documented.join(', ')})`;
    if (!type.includes('json')) return undefined;
    const validate = validatorFor(op, String(status), type);
    if (validate(body)) return undefined;
    return `body does not match the ${status} schema: ${ajv.errorsText(validate.errors)}`;
  };
}
