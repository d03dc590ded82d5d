import { loadSettingsRow, type SettingsContext } from './get-settings.js';
import { replaceSecret, type MerchantScope } from './repository.js';
import { newWebhookSecret } from './signing.js';

/** How long the replaced secret still signs (a second signature on every delivery). */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

/** Replaces the signing secret and shows the new one, once. The caller owns the transaction. */
export async function rotateWebhookSecret(
  ctx: SettingsContext,
  input: { scope: MerchantScope },
): Promise<{ secret: string; previousValidUntil: string }> {
  await loadSettingsRow(ctx, input.scope);
  const now = ctx.clock.now();
  const secret = newWebhookSecret();
  const previousValidUntil = new Date(now.getTime() + ROTATION_OVERLAP_SECONDS * 1000);
  await replaceSecret(ctx.db, input.scope, ctx.vault.seal(secret), previousValidUntil, now);
  return { secret, previousValidUntil: previousValidUntil.toISOString() };
}
