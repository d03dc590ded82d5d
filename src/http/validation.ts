import type { TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { syncHook } from './sync-hook.js';

/**
 * Bodies are validated strictly: no type coercion (a string where the schema says number is a 400)
 * and every error collected, so a VALIDATION_ERROR can name every missing field at once.
 * Path and query parameters are strings on the wire and are coerced.
 */
// verbose: errors carry the offending value (details.value) and the schema that failed.
// strictNumbers: Infinity and NaN ("Infinity" in a path, 1e400 in JSON) are not numbers.
const ajvWith = (coerceTypes: boolean) =>
  addFormats.default(
    new Ajv.default({
      coerceTypes,
      allErrors: true,
      removeAdditional: false,
      useDefaults: true,
      strict: false,
      strictNumbers: true,
      verbose: true,
    }),
  );
const strictAjv = ajvWith(false);
const coercingAjv = ajvWith(true);

export function validatorCompiler({ schema, httpPart }: { schema: object; httpPart?: string }): ValidateFunction {
  return (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
}

/**
 * A body that is one of several schemas (the route's body schema is their union: the document and the
 * types): validated first against the one `pick` names for it, so a VALIDATION_ERROR names what is
 * missing from the variant the caller meant rather than from every variant. `pick` throws its own
 * error for a body it cannot place. A preValidation hook: the route's union then passes, as the body
 * matches one of its members.
 */
export function validateBodyAs(pick: (body: Record<string, unknown>) => TSchema) {
  return syncHook((request: FastifyRequest): void => {
    const body = request.body;
    const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
    const validate = strictAjv.compile(isObject ? pick(body as Record<string, unknown>) : ANY_OBJECT);
    if (!validate(body)) throw validationError(validate.errors ?? [], 'body');
  });
}
const ANY_OBJECT = { type: 'object' };

/** Fields whose submitted value must never be echoed back in an error. */
const SECRET_FIELDS = new Set([
  'number',
  'cvv',
  'password',
  'token',
  'apiKey',
  'authenticationValue',
  'secretKey',
  'webhookSecret',
  'hmacKey',
]);

export function validationError(errors: ErrorObject[], part: string): AppError {
  const missing = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'required') {
      missing.add(joinPath(error.instancePath, (error.params as { missingProperty: string }).missingProperty));
    }
  }
  if (missing.size > 0) {
    const fields = [...missing];
    return new AppError(
      'VALIDATION_ERROR',
      `Missing required field${fields.length > 1 ? 's' : ''}: ${fields.join(', ')}`,
      {
        details: { missingFields: fields },
      },
    );
  }
  // Report the first failing field; prefer a non-union message (anyOf repeats its branches' errors).
  const error = errors.find((e) => e.keyword !== 'anyOf') ?? errors[0];
  const field = joinPath(error.instancePath);
  if (field === '') {
    // No body at all: every required field is missing.
    const required =
      error.data == null ? ((error.parentSchema as { required?: string[] } | undefined)?.required ?? []) : [];
    if (required.length > 0) {
      return new AppError(
        'VALIDATION_ERROR',
        `Missing required field${required.length > 1 ? 's' : ''}: ${required.join(', ')}`,
        {
          details: { missingFields: required },
        },
      );
    }
    return new AppError('VALIDATION_ERROR', `The request ${part} must be a JSON object`, {
      details: { missingFields: [] },
    });
  }
  const leaf = field.split('.').pop()!;
  const value = SECRET_FIELDS.has(leaf) ? '[redacted]' : echo(error.data);
  // A union of literals fails as one `const` error per branch: name them all.
  const constants = errors.filter((e) => e.keyword === 'const' && e.instancePath === error.instancePath);
  const description =
    constants.length > 1
      ? `must be one of: ${constants.map((e) => String((e.params as { allowedValue: unknown }).allowedValue)).join(', ')}`
      : describe(error);
  return new AppError('INVALID_FORMAT', `Field '${field}' ${description}`, { details: { field, value } });
}

/** The rejected value as details.value: scalars only (a nested object could be 64 KiB deep), long strings cut. */
function echo(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 256 ? `${value.slice(0, 256)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return null;
}

function describe(error: ErrorObject): string {
  const p = error.params as Record<string, string | number | undefined>;
  switch (error.keyword) {
    case 'type':
      return `must be of type ${String(p.type).replace(',', ' or ')}`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'minLength':
      return `must be at least ${String(p.limit)} characters`;
    case 'pattern':
      return `must match the pattern ${String(p.pattern)}`;
    case 'format':
      return `must be a valid ${String(p.format)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(p.comparison)} ${String(p.limit)}`;
    case 'enum':
      return `must be one of: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'const':
      return `must be ${String(p.allowedValue)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

function joinPath(instancePath: string, leaf?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (leaf !== undefined) parts.push(leaf);
  return parts.join('.');
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/**
 * Members a body schema does not define are removed before validation and named in
 * X-Ignored-Fields (decisions.md: ignored, never stored or echoed, but visible).
 * Objects with open additionalProperties (string maps such as metadata) keep their members.
 */
export function stripUnknownFields(schema: JsonSchema, value: unknown, prefix = '', out: string[] = []): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  const shape = objectShape(schema);
  if (shape === undefined) return out;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const child = shape.known.get(key);
    if (child) {
      stripUnknownFields(child, record[key], `${prefix}${key}.`, out);
    } else if (!shape.open) {
      delete record[key];
      out.push(`${prefix}${key}`);
    }
  }
  return out;
}

interface ObjectShape {
  /** Every property any branch defines (a Map: member names such as "constructor" are data, not lookups). */
  known: Map<string, JsonSchema>;
  /** additionalProperties allowed (string maps such as metadata): unknown members stay. */
  open: boolean;
}

/** The schema and, through nested unions, every branch it may take (allOf's parts too unless `withAllOf` is false). */
function branchesOf(schema: JsonSchema, withAllOf = true): JsonSchema[] {
  const nested = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(withAllOf ? (schema.allOf ?? []) : [])];
  return [schema, ...nested.flatMap((branch) => branchesOf(branch, withAllOf))];
}

/** Schemas are fixed at start, so each one's shape is worked out once, not on every request. */
const shapes = new WeakMap<JsonSchema, ObjectShape | null>();

function objectShape(schema: JsonSchema): ObjectShape | undefined {
  let shape = shapes.get(schema);
  if (shape === undefined) {
    const branches = branchesOf(schema);
    const known = new Map<string, JsonSchema>();
    for (const branch of branches) {
      for (const [name, property] of Object.entries(branch.properties ?? {})) {
        // Branches that shape one member differently (each processor's credentials) each keep theirs.
        const earlier = known.get(name);
        known.set(name, earlier && earlier !== property ? { anyOf: [earlier, property] } : property);
      }
    }
    const open = branchesOf(schema, false).some(
      (s) => s.additionalProperties !== undefined && s.additionalProperties !== false,
    );
    shape = branches.some((b) => b.properties) ? { known, open } : null;
    shapes.set(schema, shape);
  }
  return shape ?? undefined;
}

export const ignoreUnknownBodyFields = syncHook((request: FastifyRequest, reply: FastifyReply): void => {
  const schema = request.routeOptions.schema?.body as JsonSchema | undefined;
  if (!schema || request.body === undefined) return;
  const ignored = stripUnknownFields(schema, request.body);
  if (ignored.length > 0) reply.header('X-Ignored-Fields', ignoredFieldsHeader(ignored));
});

const IGNORED_FIELDS_MAX_LENGTH = 2048;

/**
 * The names, percent-encoded: a member name is the client's text, and a header value may not hold
 * CR, LF or characters beyond Latin-1 (Node refuses to send it, after the request's work committed).
 * Whole names only, up to 2 KiB.
 */
export function ignoredFieldsHeader(names: string[]): string {
  let value = '';
  for (const name of names) {
    const next = `${value}${value ? ', ' : ''}${encodeURIComponent(name)}`;
    if (next.length > IGNORED_FIELDS_MAX_LENGTH) break;
    value = next;
  }
  return value;
}
