import type { NotificationsContext } from './context.js';
import { EVENT_TYPES } from './event-types.js';
import { ensureSettingsRow, findSettingsRow, type MerchantScope } from './repository.js';
import type { Settings } from './schemas.js';
import { newWebhookSecret, secretPrefix } from './signing.js';

export type SettingsContext = Pick<NotificationsContext, 'db' | 'clock' | 'vault'>;

/** The settings row of a merchant and mode, created with a fresh webhook secret on first use. */
export async function loadSettingsRow(ctx: SettingsContext, scope: MerchantScope) {
  const existing = await findSettingsRow(ctx.db, scope);
  if (existing) return existing;
  await ensureSettingsRow(ctx.db, scope, ctx.vault.seal(newWebhookSecret()), ctx.clock.now());
  return (await findSettingsRow(ctx.db, scope))!;
}

export async function getSettings(ctx: SettingsContext, input: { scope: MerchantScope }): Promise<Settings> {
  const row = await loadSettingsRow(ctx, input.scope);
  return {
    businessName: row.business_name,
    notifyUrl: row.notify_url,
    checkoutOrigins: row.checkout_origins,
    walletEnabled: row.wallet_enabled,
    retryDeclineCodes: row.retry_decline_codes,
    eventTypes: row.event_types,
    availableEventTypes: [...EVENT_TYPES],
    webhookSecretPrefix: secretPrefix(ctx.vault.unseal(row.webhook_secret)),
    endpointDisabledAt: row.endpoint_disabled_at && new Date(row.endpoint_disabled_at).toISOString(),
  };
}
