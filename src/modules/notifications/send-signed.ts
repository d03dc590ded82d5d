import type { NotificationsContext } from './context.js';
import type { Sender, SendResult } from './sender.js';
import { signNotification } from './signing.js';
import { targetProblem } from './target-guard.js';

/** A merchant's signing secrets as stored (sealed): the current one, and the previous one while it still signs. */
export interface StoredSecrets {
  webhook_secret: string;
  previous_webhook_secret: string | null;
  previous_valid_until: Date | null;
}

export type SendingContext = Pick<NotificationsContext, 'vault' | 'config'> & { sender: Sender };

/**
 * The one way a notification leaves the gateway, for real events (deliver-due.ts) and test events
 * (send-test-event.ts) alike: the envelope as JSON, signed with every secret that signs at `at` (both
 * headers, signing.ts), sent once to `url` by the guarded sender; a URL that is no allowed target is
 * refused without a call.
 */
export async function sendSigned(
  ctx: SendingContext,
  input: { url: string; eventId: string; envelope: unknown; secrets: StoredSecrets; at: Date },
): Promise<SendResult> {
  const { secrets: stored, at } = input;
  const secrets = [ctx.vault.unseal(stored.webhook_secret)];
  if (stored.previous_webhook_secret && stored.previous_valid_until && at < stored.previous_valid_until)
    secrets.push(ctx.vault.unseal(stored.previous_webhook_secret));
  const body = JSON.stringify(input.envelope);
  if (targetProblem(input.url, ctx.config.webhookAllowPrivateTargets) !== undefined)
    return {
      statusCode: null,
      retryAfter: undefined,
      durationMs: 0,
      error: { error: 'WEBHOOK_TARGET_FORBIDDEN', message: 'the target is not an allowed http(s) address' },
    };
  return ctx.sender.send(input.url, { ...signNotification(secrets, input.eventId, at, body) }, body);
}
