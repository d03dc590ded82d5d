import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook secrets and the two signatures of every notification (docs/decisions.md "Notifications sent
 * to merchants"). A secret is `whsec_` + base64 of 32 random bytes, the Standard Webhooks form; both
 * signatures are keyed with those bytes, so one secret verifies both headers.
 */
const PREFIX = 'whsec_';

export const newWebhookSecret = (): string => PREFIX + randomBytes(32).toString('base64');

/** What GET /settings shows of the secret: enough to tell two apart, never enough to sign. */
export const secretPrefix = (secret: string): string => secret.slice(0, PREFIX.length + 6);

const keyBytes = (secret: string): Buffer => Buffer.from(secret.slice(PREFIX.length), 'base64');

export interface SignedHeaders {
  'x-webhook-signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Headers for one attempt. With several secrets (a rotation window) each header carries one signature
 * per secret, newest first: `X-Webhook-Signature` comma-separated hex, `webhook-signature` space-separated
 * `v1,<base64>` as Standard Webhooks specifies.
 */
export function signNotification(secrets: string[], eventId: string, timestamp: Date, body: string): SignedHeaders {
  const seconds = Math.floor(timestamp.getTime() / 1000).toString();
  return {
    'x-webhook-signature': secrets.map((s) => createHmac('sha512', keyBytes(s)).update(body).digest('hex')).join(','),
    'webhook-id': eventId,
    'webhook-timestamp': seconds,
    'webhook-signature': secrets
      .map((s) => `v1,${createHmac('sha256', keyBytes(s)).update(`${eventId}.${seconds}.${body}`).digest('base64')}`)
      .join(' '),
  };
}
