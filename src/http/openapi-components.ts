import { isDeepStrictEqual } from 'node:util';
import type { Static, TSchema } from '@sinclair/typebox';

/**
 * Every JSON body of the document, asked or answered, becomes a named component referenced with $ref,
 * so that a client generator (the SDK's openapi-typescript, docs/sdk.md) gives each one a type name:
 *
 * - a schema that carries a `title` (the JSON Schema annotation: "a short name for the schema") is the
 *   component of that name, wherever it occurs, nested ones included: `Type.Object({...}, { title: 'Payment' })`;
 * - a top-level body without one is named after its operation: `createPaymentRequest` asks
 *   `CreatePaymentRequestBody` and answers `CreatePaymentRequestResponse`.
 *
 * A name, not `$id`: an `$id` would also register the schema in the validators' registry, where one
 * schema object shared by many routes is an error (validation.ts compiles every route's schema).
 * Two different schemas with the same name fail the document: a component name is a type name.
 */
export function withNamedBodies(document: OpenApiDocument): OpenApiDocument {
  const components = (document.components ??= {});
  const schemas = (components.schemas ??= {});
  const named = (name: string, schema: JsonNode): JsonNode => {
    const existing = schemas[name];
    if (existing !== undefined && !isDeepStrictEqual(existing, schema))
      throw new Error(`two different schemas are named ${name} in the OpenAPI document`);
    schemas[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  };
  const hoist = (node: JsonNode, fallbackName?: string): JsonNode => {
    const inner = hoistChildren(node, (child) => hoist(child));
    if (typeof inner.title === 'string' && inner.$ref === undefined) return named(inner.title, inner);
    return fallbackName !== undefined && isInline(inner) ? named(fallbackName, inner) : inner;
  };

  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const base = operation.operationId && operation.operationId[0].toUpperCase() + operation.operationId.slice(1);
      for (const media of jsonMedia(operation.requestBody?.content))
        media.schema = hoist(media.schema, base && `${base}Body`);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const suffix = successStatuses(operation).length > 1 ? status : '';
        for (const media of jsonMedia(response.content))
          media.schema = hoist(media.schema, base && status.startsWith('2') ? `${base}Response${suffix}` : undefined);
      }
    }
  }
  return document;
}

/** A structure written out in place: not a reference, and not a bare primitive a name would only rename. */
export function isInline(schema: JsonNode): boolean {
  if (schema.$ref !== undefined) return false;
  return (
    ['object', 'array'].includes(String(schema.type)) ||
    ['properties', 'anyOf', 'oneOf', 'allOf'].some((k) => k in schema)
  );
}

function successStatuses(operation: Operation): string[] {
  return Object.keys(operation.responses ?? {}).filter((status) => status.startsWith('2'));
}

function jsonMedia(content: Record<string, { schema?: JsonNode }> | undefined): Array<{ schema: JsonNode }> {
  return Object.entries(content ?? {})
    .filter(([type, media]) => type.includes('json') && media.schema !== undefined)
    .map(([, media]) => media as { schema: JsonNode });
}

/** The schema with each of its subschemas replaced by what `visit` makes of it. */
function hoistChildren(schema: JsonNode, visit: (child: JsonNode) => JsonNode): JsonNode {
  const out: JsonNode = { ...schema };
  if (isNode(schema.properties))
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([key, child]) => [key, isNode(child) ? visit(child) : child]),
    );
  for (const key of ['items', 'additionalProperties', 'not']) if (isNode(schema[key])) out[key] = visit(schema[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(schema[key]))
      out[key] = (schema[key] as unknown[]).map((child) => (isNode(child) ? visit(child) : child));
  return out;
}

const isNode = (value: unknown): value is JsonNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type JsonNode = Record<string, unknown> & { $ref?: string; title?: unknown; properties?: unknown };

interface Operation {
  operationId?: string;
  requestBody?: { content?: Record<string, { schema?: JsonNode }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonNode }> }>;
}

export interface OpenApiDocument {
  paths?: Record<
    string,
    Record<string, Operation & { parameters?: unknown[]; security?: Array<Record<string, unknown>> }>
  >;
  components?: { schemas?: Record<string, unknown> };
}

/**
 * The schema with an example for the document (`examples`, which validation ignores): the example is
 * typed by the schema, so it cannot drift from the fields. Put it on the route, not on a schema that is
 * also nested elsewhere, where its example would then differ from the same component's at the top.
 */
export function withExample<T extends TSchema>(schema: T, example: Static<T>): T {
  return { ...schema, examples: [example] };
}
