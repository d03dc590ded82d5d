import { type DbContext, inTransaction } from '../../storage/db-context.js';
import { recordEvent } from '../events/index.js';
import { queueNotice } from './queue-notice.js';
import { claimDailyReport, type MerchantScope } from './repository.js';

/**
 * Deprecated features (the spec's "Versioning and deprecation": 2.0 served until June 2024; the checkout's
 * legacy apiKey parameter, which the spec deprecates without dates, from 2026-01-01 with a sunset on
 * 2027-07-01 — decisions.md "Legacy apiKey on the checkout page"). The gateway still serves them past
 * their sunset date; merchants are told on every use (headers) and once a day (webhook and e-mail).
 */
export const DEPRECATIONS = {
  'api-version-2.0': {
    description: 'X-API-Version 2.0',
    deprecatedAt: '2023-12-01T00:00:00.000Z',
    sunsetAt: '2024-06-01T00:00:00.000Z',
    migrationNote: 'docs/notifications.md#deprecations: send X-API-Version 2.1 (or no X-API-Version)',
  },
  'checkout-api-key-parameter': {
    description: 'the apiKey query parameter of the checkout page',
    deprecatedAt: '2026-01-01T00:00:00.000Z',
    sunsetAt: '2027-07-01T00:00:00.000Z',
    migrationNote:
      'docs/notifications.md#deprecations: mint a checkout session token (POST /payment-requests/{id}/checkout-session) and pass token instead; rotate the exposed key',
  },
} as const;
export type DeprecatedFeature = keyof typeof DEPRECATIONS;

/** The Deprecation (RFC 9745) and Sunset (RFC 8594) headers of an answer served for a deprecated feature. */
export function deprecationHeaders(feature: DeprecatedFeature): Record<string, string> {
  const { deprecatedAt, sunsetAt } = DEPRECATIONS[feature];
  return {
    Deprecation: `@${Date.parse(deprecatedAt) / 1000}`,
    Sunset: new Date(sunsetAt).toUTCString(),
  };
}

/** A deprecated feature as the HTTP hooks serve it: its headers, and a report of one use in a transaction of its own. */
export function deprecationOf(ctx: DbContext, feature: DeprecatedFeature) {
  return {
    headers: deprecationHeaders(feature),
    report: async (scope: MerchantScope): Promise<void> => {
      await inTransaction(ctx, (trx) => reportDeprecatedUse(trx, { scope, feature }));
    },
  };
}

/**
 * A merchant used a deprecated feature: the first time each day (per merchant, mode and feature) an
 * `api.version.deprecated` event and an e-mail notice. Returns whether this use was reported.
 * The caller owns the transaction.
 */
export async function reportDeprecatedUse(
  ctx: DbContext,
  input: { scope: MerchantScope; feature: DeprecatedFeature },
): Promise<boolean> {
  const { scope, feature } = input;
  const now = ctx.clock.now();
  if (!(await claimDailyReport(ctx.db, scope, `deprecated:${feature}`, now))) return false;
  const deprecation = DEPRECATIONS[feature];
  await recordEvent(ctx.db, 'api.version.deprecated', {
    merchantId: scope.merchantId,
    livemode: scope.livemode,
    objectId: scope.merchantId,
    payload: { feature, ...deprecation },
    createdAt: now,
  });
  await queueNotice(ctx, {
    merchantId: scope.merchantId,
    kind: 'deprecation',
    subject: `Deprecated: ${deprecation.description} (sunset ${deprecation.sunsetAt.slice(0, 10)})`,
    text: [
      `Your ${scope.livemode ? 'live' : 'test'} integration used ${deprecation.description}.`,
      `It is deprecated since ${deprecation.deprecatedAt.slice(0, 10)} and will be removed after ${deprecation.sunsetAt.slice(0, 10)}.`,
      `How to migrate: ${deprecation.migrationNote}.`,
    ].join('\n'),
  });
  return true;
}

/**
 * An API key was seen where it must not be (a browser URL): an `api_key.exposed` event and an e-mail
 * urging rotation, the first time each day per key. The key is named by id only, never by value.
 * The caller owns the transaction.
 */
export async function reportExposedKey(
  ctx: DbContext,
  input: { scope: MerchantScope; keyId: number; where: string },
): Promise<boolean> {
  const { scope, keyId } = input;
  const now = ctx.clock.now();
  if (!(await claimDailyReport(ctx.db, scope, `exposed:${keyId}`, now))) return false;
  const mode = scope.livemode ? 'live' : 'test';
  await recordEvent(ctx.db, 'api_key.exposed', {
    merchantId: scope.merchantId,
    livemode: scope.livemode,
    objectId: keyId,
    payload: { keyId, mode, exposedAt: now.toISOString() },
    createdAt: now,
  });
  await queueNotice(ctx, {
    merchantId: scope.merchantId,
    kind: 'api_key_exposed',
    subject: `Your ${mode} API key was exposed: rotate it`,
    text: [
      `Your ${mode} API key (id ${keyId}) was seen in ${input.where}, where anyone can read it.`,
      'Rotate it now (PUT /users/{userId}/apikey), and use checkout session tokens in browser URLs.',
    ].join('\n'),
  });
  return true;
}
