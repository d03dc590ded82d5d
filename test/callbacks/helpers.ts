import { createHmac, randomUUID } from 'node:crypto';
import type { CallResult, TestGateway } from '../helpers/gateway.js';

/** A well-formed provider callback, as the sandbox sends it. */
export function providerCallback(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventId: `evt_${randomUUID()}`,
    transactionId: `acme_${randomUUID()}`,
    status: 'success',
    amount: 1050,
    currency: 'EUR',
    timestamp: '2026-03-01T12:00:00.000Z',
    providerData: { reference: 'pay_123' },
    ...overrides,
  };
}

export const secretOf = (gw: TestGateway) => gw.gateway.app.ctx.secrets.callbackSigningSecret;

export function sign(gw: TestGateway, raw: string, algorithm: 'sha512' | 'sha256' = 'sha512'): string {
  return createHmac(algorithm, secretOf(gw)).update(raw).digest('hex');
}

/** Sends `body` (an object is serialised once; the signature covers exactly the bytes sent). */
export function postSigned(
  gw: TestGateway,
  path: string,
  body: Record<string, unknown> | string,
  options: { algorithm?: 'sha512' | 'sha256'; signature?: string; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const signature = options.signature ?? sign(gw, raw, options.algorithm);
  return gw.call('POST', path, { body: raw, headers: { 'x-webhook-signature': signature, ...options.headers } });
}

/**
 * Runs jobs until none is due. A receiver also starts a pass itself, and runDue shares a pass
 * already under way, so one call may join a pass that began before the latest job existed.
 */
export async function drainJobs(gw: TestGateway): Promise<void> {
  while ((await gw.runJobs()) > 0) {
    // keep going until a pass finds nothing
  }
}

export async function eventRows(gw: TestGateway, source: string, eventId: string) {
  return gw.db
    .selectFrom('callback_events')
    .selectAll()
    .where('source', '=', source as never)
    .where('event_id', '=', eventId)
    .execute();
}
