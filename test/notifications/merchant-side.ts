import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { expect, vi } from 'vitest';
import type { TestGateway, TestMerchant } from '../helpers/gateway.js';
import type { Received } from './receiver.js';

/** A merchant whose notification URL is `url`, with a signing secret it knows (rotated once, shown once). */
export async function merchantWithSecret(gw: TestGateway, url: string): Promise<TestMerchant & { secret: string }> {
  const m = await gw.merchant();
  const patched = await gw.call('PATCH', '/settings', { apiKey: m.apiKey, body: { notifyUrl: url } });
  expect(patched.status, patched.text).toBe(200);
  const rotated = await gw.call('POST', '/settings/webhook-secret', { apiKey: m.apiKey });
  expect(rotated.status, rotated.text).toBe(200);
  return { ...m, secret: rotated.body.secret as string };
}

/**
 * The standardwebhooks library, unchanged; it compares the timestamp with its own clock (5 minutes of
 * tolerance), so that clock reads `now` (the gateway's manual time) while it verifies.
 */
export function verifyStandard(secret: string, r: Received, now: Date): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now });
  try {
    return new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}

/** X-Webhook-Signature checked as docs/notifications.md tells merchants to. */
export function verifySha512(secret: string, rawBody: string, header: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha512', key).update(rawBody).digest();
  return header.split(',').some((candidate) => {
    const given = Buffer.from(candidate.trim(), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
