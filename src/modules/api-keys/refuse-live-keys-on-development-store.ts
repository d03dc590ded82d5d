import type { Db } from '../../storage/db.js';
import { liveKeyEverIssued } from './repository.js';

/**
 * A development store keeps its own card encryption key (storage/secrets.ts), so a copy of the store
 * is enough to decrypt its card numbers: one that ever issued a live key is refused before anything
 * is written.
 */
export async function refuseLiveKeysOnDevelopmentStore(
  ctx: { db: Db },
  input: { cardKeyInStore: boolean },
): Promise<void> {
  if (!input.cardKeyInStore || !(await liveKeyEverIssued(ctx.db))) return;
  throw new Error(
    'this store has issued live API keys (svc_live_sk_…), but its card encryption key would be kept in the same ' +
      'database (development secrets), so a copy of the store could decrypt its card numbers. Set CARD_ENCRYPTION_KEYS ' +
      'and CARD_FINGERPRINT_SECRET in the environment (or NODE_ENV=production with all its secrets), or use a fresh ' +
      'development store. Nothing was changed.',
  );
}
