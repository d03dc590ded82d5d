import { AppError, invalidFormat } from '../../errors.js';
import type { Config } from '../../config.js';
import { checkNotifyUrl } from './check-notify-url.js';
import { getSettings, loadSettingsRow, type SettingsContext } from './get-settings.js';
import { updateSettingsRow, type MerchantScope, type SettingsChanges } from './repository.js';
import type { Settings, UpdateSettingsInput } from './schemas.js';

/** An exact origin (scheme, host, port; no path), https in live mode. */
function checkOrigin(value: string, livemode: boolean): void {
  let origin: string | undefined;
  try {
    origin = new URL(value).origin;
  } catch {
    origin = undefined;
  }
  if (origin !== value || !/^https?:$/.test(new URL(value).protocol))
    throw invalidFormat(
      'checkoutOrigins',
      value,
      'each checkout origin must be an exact origin such as https://shop.example',
    );
  if (livemode && !value.startsWith('https://'))
    throw invalidFormat('checkoutOrigins', value, 'checkout origins must use https in live mode');
}

/** Changes the fields sent; setting notifyUrl (again) re-enables a disabled endpoint. The caller owns the transaction. */
export async function updateSettings(
  ctx: SettingsContext & { config: Pick<Config, 'webhookAllowPrivateTargets'> },
  input: { scope: MerchantScope; changes: UpdateSettingsInput },
): Promise<Settings> {
  const { scope, changes } = input;
  if (Object.keys(changes).length === 0)
    throw new AppError(
      'VALIDATION_ERROR',
      'Send at least one of businessName, notifyUrl, checkoutOrigins, walletEnabled, retryDeclineCodes, eventTypes',
    );
  await checkNotifyUrl(ctx, { field: 'notifyUrl', url: changes.notifyUrl });
  for (const origin of changes.checkoutOrigins ?? []) checkOrigin(origin, scope.livemode);
  await loadSettingsRow(ctx, scope);
  const row: SettingsChanges = {};
  if (changes.businessName !== undefined) row.business_name = changes.businessName;
  if (changes.notifyUrl !== undefined) {
    row.notify_url = changes.notifyUrl;
    row.endpoint_disabled_at = null;
    row.endpoint_disabled_reason = null;
  }
  if (changes.checkoutOrigins !== undefined)
    row.checkout_origins = JSON.stringify([...new Set(changes.checkoutOrigins)]);
  if (changes.walletEnabled !== undefined) row.wallet_enabled = changes.walletEnabled;
  if (changes.retryDeclineCodes !== undefined) row.retry_decline_codes = [...new Set(changes.retryDeclineCodes)];
  if (changes.eventTypes !== undefined)
    row.event_types = changes.eventTypes === null ? null : JSON.stringify([...new Set(changes.eventTypes)]);
  await updateSettingsRow(ctx.db, scope, row, ctx.clock.now());
  return getSettings(ctx, { scope });
}
