import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifying the gateway's notifications. Each delivery is signed twice with the same secret (`whsec_…`,
 * from POST /settings/webhook-secret):
 *
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds), `webhook-signature`
 *   (space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`); the timestamp must be recent;
 * - `X-Webhook-Signature`: the hex HMAC-SHA512 of the raw body (comma-separated during a secret
 *   rotation). The gateway's own callback form accepts HMAC-SHA256 too, told apart by length.
 *
 * Both are keyed with the bytes the secret's base64 (after `whsec_`) encodes; a secret without the
 * prefix is used as it is (UTF-8). Signatures are compared in constant time.
 */

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How old (or how far ahead) `webhook-timestamp` may be, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The time to check the timestamp against (default now). */
  now?: Date;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** One notification as the gateway sends it. */
export interface WebhookEvent {
  id: string;
  type: string;
  created: string;
  apiVersion: string;
  livemode: boolean;
  data: { object: Record<string, unknown> };
  [field: string]: unknown;
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/**
 * The event of a delivery whose signature verifies, or a WebhookVerificationError. Pass the body
 * exactly as received (a Buffer or the raw string), before any JSON parsing. The Standard Webhooks
 * headers are checked when present (they also bound replays by their timestamp), else X-Webhook-Signature.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const key = keyOf(secret);
  const header = (name: string) => headerOf(headers, name);
  const standard = header('webhook-signature');
  const plain = header('x-webhook-signature');
  if (standard !== undefined)
    verifyStandard(body, key, header('webhook-id'), header('webhook-timestamp'), standard, options);
  else if (plain !== undefined) verifyPlain(body, key, plain);
  else throw new WebhookVerificationError('No signature header: expected webhook-signature or X-Webhook-Signature');
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('The signed body is not JSON');
  }
}

function verifyStandard(
  body: Buffer,
  key: Buffer,
  id: string | undefined,
  timestamp: string | undefined,
  signatures: string,
  options: VerifyOptions,
): void {
  if (!id || !timestamp || !/^\d+$/.test(timestamp))
    throw new WebhookVerificationError('webhook-id and a numeric webhook-timestamp must come with webhook-signature');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} seconds away from now`);
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]))
    .digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    return version === 'v1' && signature !== undefined && sameBytes(Buffer.from(signature, 'base64'), expected);
  });
  if (!matches) throw new WebhookVerificationError('webhook-signature does not match the body');
}

function verifyPlain(body: Buffer, key: Buffer, signatures: string): void {
  const matches = signatures.split(',').some((candidate) => {
    const hex = candidate.trim().toLowerCase();
    const algorithm = hex.length === 128 ? 'sha512' : hex.length === 64 ? 'sha256' : undefined;
    if (!algorithm || !/^[0-9a-f]+$/.test(hex)) return false;
    return sameBytes(Buffer.from(hex, 'hex'), createHmac(algorithm, key).update(body).digest());
  });
  if (!matches) throw new WebhookVerificationError('X-Webhook-Signature does not match the body');
}

function keyOf(secret: string): Buffer {
  if (!secret) throw new WebhookVerificationError('No webhook secret given');
  return secret.startsWith('whsec_')
    ? Buffer.from(secret.slice('whsec_'.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

function sameBytes(given: Buffer, expected: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value.join(name === 'webhook-signature' ? ' ' : ',') : value;
}
