import type { Db } from '../../storage/db.js';
import type { KeyMode } from './tables.js';
import { findActiveKeysOfUser } from './repository.js';

export interface KeySummary {
  mode: KeyMode;
  /** The first characters of the key (svc_test_sk_xxxx): enough to recognise it, never enough to use it. */
  prefix: string;
  createdAt: string;
  /** When the key was first seen in a public place (the legacy checkout URL); rotate it. */
  exposedAt: string | null;
}

/** The user's active keys, described: the keys themselves were shown once and are kept only as hashes. */
export async function listApiKeys(ctx: { db: Db }, input: { userId: number }): Promise<KeySummary[]> {
  const rows = await findActiveKeysOfUser(ctx.db, input.userId);
  return rows.map((row) => ({
    mode: row.mode,
    prefix: row.display_prefix,
    createdAt: row.created_at.toISOString(),
    exposedAt: row.exposed_at?.toISOString() ?? null,
  }));
}
