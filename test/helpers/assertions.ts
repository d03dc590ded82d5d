import { expect } from 'vitest';
import { ERRORS, type ErrorName } from '../../src/errors.js';
import type { CallResult } from './gateway.js';

/** Traces of internals that must never reach a client: stack frames, source paths, SQL, driver names. */
const LEAKS =
  /\bat [\w.<>$]+ \(|node_modules|\.[cm]?[jt]s:\d+|\bselect\b[^"]*\bfrom\b|\binsert into\b|\bupdate \w+ set\b|violates|relation "|syntax error at|pglite|kysely|\bpg_/i;

export function expectNoLeak(res: CallResult): void {
  expect(res.text).not.toMatch(LEAKS);
}

/** The error-guide body: {error, message, code, details?, timestamp, requestId}, requestId equal to X-Request-Id. */
export function expectErrorGuide(res: CallResult, error: ErrorName): void {
  const { status, code } = ERRORS[error];
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
  expect(res.body).toMatchObject({
    error,
    code,
    message: expect.any(String),
    timestamp: expect.any(String),
    requestId: expect.any(String),
  });
  for (const key of Object.keys(res.body))
    expect(['error', 'message', 'code', 'details', 'timestamp', 'requestId']).toContain(key);
  expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  expectNoLeak(res);
}

/** The RFC 9457 problem record used under /payments and /customers. */
export function expectProblem(res: CallResult, error: ErrorName): void {
  const { status, code, title } = ERRORS[error];
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json\b/);
  expect(res.body).toMatchObject({ type: expect.any(String), title, status, detail: expect.any(String), code, error });
  expect(res.body.instance).toMatch(/^\/[^?]*$/);
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  expectNoLeak(res);
}

/** Decodes a JWT's header and claims without verifying it (to inspect what the gateway issued). */
export function decodeJwt(token: string): { header: Record<string, unknown>; claims: Record<string, any> } {
  const [header, claims] = token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
  return { header, claims };
}
