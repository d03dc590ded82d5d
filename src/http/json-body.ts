import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, invalidFormat } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received (signature checks need the bytes). */
    rawBody?: string;
  }
}

export const JSON_TYPES = ['application/json', 'application/json-patch+json'];

/** JSON is UTF-8 (RFC 8259): a body that is not is refused, never decoded with replacement characters. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface JsonParserOptions {
  /**
   * Runs on the raw bytes before they are decoded or parsed; throwing rejects the request with that
   * error. Signed-callback routes use it so a forged body is refused before anything reads it, and a
   * signature is checked over exactly the bytes that were signed.
   */
  beforeParse?: (request: FastifyRequest, bytes: Buffer) => void;
}

type ParserDone = (err: Error | null, value?: unknown) => void;

/**
 * JSON bodies arrive as application/json or, per the spec, application/json-patch+json.
 * An empty body parses to undefined, so a route without required fields accepts it and one
 * with required fields answers VALIDATION_ERROR instead of a parser error.
 * Also callable inside an encapsulated scope: it replaces the JSON parsers that scope inherited.
 */
export function registerJsonParsers(app: FastifyInstance, options: JsonParserOptions = {}): void {
  for (const type of JSON_TYPES) if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'buffer' }, jsonParser(app, options));
}

/**
 * For the routes of one encapsulated scope only: a body of any other content type, or of none, is read
 * as JSON too. For a route whose body carries nothing (the checkout session mint), so a first `curl -d '{}'`
 * (sent as application/x-www-form-urlencoded) or a text/plain `{}` works; every other route keeps its 415.
 */
export function readAnyContentTypeAsJson(scope: FastifyInstance): void {
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, jsonParser(scope, {}));
}

function jsonParser(app: FastifyInstance, options: JsonParserOptions) {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request: FastifyRequest, body: string | Buffer, done: ParserDone) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    let text: string;
    try {
      options.beforeParse?.(request, bytes);
      text = utf8.decode(bytes);
    } catch (error) {
      if (error instanceof TypeError)
        return done(new AppError('INVALID_JSON', 'The request body is not valid UTF-8 text'));
      return done(error as Error);
    }
    request.rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    try {
      checkJsonShape(text);
    } catch (error) {
      return done(error as Error);
    }
    void parse(request, text, (error, value) => {
      if (error) return done(error);
      // PostgreSQL text cannot hold NUL; refuse it here, naming the field, instead of failing in SQL.
      const field = /\\u0000/i.test(text) ? nulField(value) : undefined;
      if (field !== undefined)
        return done(invalidFormat(field, '[NUL]', `Field '${field}' must not contain the NUL character`));
      done(null, value);
    });
  };
}

/** No request body the API defines comes near these; anything beyond is refused before it is parsed. */
export const JSON_LIMITS = { depth: 64, members: 5_000 } as const;

/**
 * Refuses a body nested deeper than JSON_LIMITS.depth or holding more than JSON_LIMITS.members values
 * in its objects and arrays, in one pass over the text before JSON.parse. Everything after the parser
 * (validation, field stripping, logging, SQL, PostgreSQL's own JSON parser) may recurse over the
 * document, and a deep one exhausts the stack there: a 500.
 * Malformed text is left to the parser, which says so.
 */
export function checkJsonShape(text: string): void {
  let depth = 0;
  let members = 0;
  let inString = false;
  let openedEmpty = false; // just after [ or {: the next token is a first member unless it closes
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (openedEmpty) {
      openedEmpty = false;
      if (c !== 0x5d /* ] */ && c !== 0x7d /* } */) members++;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > JSON_LIMITS.depth) throw tooComplex('depth', JSON_LIMITS.depth);
      openedEmpty = true;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c /* , */ && depth > 0) members++;
    if (members > JSON_LIMITS.members) throw tooComplex('members', JSON_LIMITS.members);
  }
}

const tooComplex = (limit: 'depth' | 'members', max: number) =>
  new AppError(
    'JSON_TOO_COMPLEX',
    limit === 'depth'
      ? `The JSON body is nested more than ${max} levels deep`
      : `The JSON body has more than ${max} members and array elements`,
    { details: { limit, max } },
  );

/** Path of the first string (value or member name) holding U+0000, or undefined. Iterative: bodies may nest deeply. */
function nulField(body: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[body, '']];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string' && value.includes('\u0000')) return path || '(body)';
    if (value === null || typeof value !== 'object') continue;
    for (const [key, child] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return childPath.replaceAll('\u0000', '\\u0000');
      pending.push([child, childPath]);
    }
  }
  return undefined;
}
