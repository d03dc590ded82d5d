import type { FastifyBaseLogger } from 'fastify';
import type { Db, Storage } from '../../storage/db.js';
import { keyCacheBarriers } from '../instances/index.js';
import type { ActiveKey } from './repository.js';

/**
 * The API-key cache: key hash → active key and merchant status, so an authenticated call costs no
 * database round trip, and still exact: once a key is revoked or a merchant's status changes (and the
 * change has been acknowledged, see awaitKeyCacheAcknowledgements), no instance answers from an old entry.
 *
 * - The database announces every such change on CHANNEL when it commits (migration 0012 triggers);
 *   each instance listens on a connection of its own and drops the merchant's entries.
 * - A read racing a notice does not put the old row back: a lookup stores its row only if no notice
 *   arrived while it read (`generation`), and only while the cache is usable.
 * - Lease: every PROBE_INTERVAL_MS an instance sends a numbered probe barrier; the cache
 *   is usable until LEASE_MS after sending the last probe that came back on its listener. A probe sent
 *   after a change commits comes back after the change's notice (notices arrive in commit order), so an
 *   instance that missed a notice stops answering from its cache at most LEASE_MS after the change.
 *   A lost listener empties the cache at once; the instance reads the database until it listens again.
 * Unknown keys are never cached (a new key works at once; guessing fills no memory).
 */
export const KEY_CACHE_CHANNEL = 'api_key_cache';
export const KEY_CACHE_LEASE_MS = 2000;
const PROBE_INTERVAL_MS = 500;
const RELISTEN_MS = 1000;
const MAX_ENTRIES = 10_000;

export interface KeyCacheStats {
  enabled: boolean;
  usable: boolean;
  entries: number;
  hits: number;
  misses: number;
}

export interface KeyCache {
  lookup(keyHash: string, read: () => Promise<ActiveKey | undefined>): Promise<ActiveKey | undefined>;
  stats(): KeyCacheStats;
  stop(): Promise<void>;
}

/** A cache that never stores (API_KEY_CACHE=false, and contexts without a running gateway). */
export const noKeyCache: KeyCache = {
  lookup: (_keyHash, read) => read(),
  stats: () => ({ enabled: false, usable: false, entries: 0, hits: 0, misses: 0 }),
  stop: async () => {},
};

export async function startKeyCache(
  deps: { storage: Storage; instanceId: string; logger: FastifyBaseLogger },
  options: { enabled: boolean },
): Promise<KeyCache> {
  const { storage, instanceId, logger } = deps;
  const entries = new Map<string, ActiveKey>();
  let generation = 0;
  let leaseUntil = 0;
  let seen = 0;
  let pendingProbe: { n: number; sentAt: number } | undefined;
  let stopListening: (() => Promise<void>) | undefined;
  let stopped = false;
  let hits = 0;
  let misses = 0;

  const drop = (merchantId?: number) => {
    generation++;
    if (merchantId === undefined) entries.clear();
    else for (const [hash, key] of entries) if (key.merchantId === merchantId) entries.delete(hash);
  };
  const usable = () => {
    if (performance.now() < leaseUntil) return true;
    if (entries.size > 0) drop();
    return false;
  };
  const renew = (sentAt: number) => {
    leaseUntil = Math.max(leaseUntil, sentAt + KEY_CACHE_LEASE_MS);
  };

  let acking: Promise<void> | undefined;
  let ackAgain = false;
  const acknowledge = () => {
    if (acking) {
      ackAgain = true;
      return;
    }
    acking = (async () => {
      do {
        ackAgain = false;
        await keyCacheBarriers
          .acknowledge(storage.db, instanceId, seen)
          .catch((error: Error) => logger.warn({ err: { message: error.message } }, 'key cache: ack not written'));
      } while (ackAgain && !stopped);
      acking = undefined;
    })();
  };

  const notice = (payload: string) => {
    const [kind, value] = payload.split(':');
    if (kind === 'm') return drop(value === '*' ? undefined : Number(value));
    const n = Number(value);
    seen = Math.max(seen, n);
    if (pendingProbe && seen >= pendingProbe.n) {
      renew(pendingProbe.sentAt);
      pendingProbe = undefined;
    }
    if (kind === 'r') acknowledge();
  };

  let relistenTimer: NodeJS.Timeout | undefined;
  const listen = async () => {
    try {
      stopListening = await storage.listen(KEY_CACHE_CHANNEL, { notice, lost });
    } catch (error) {
      lost(error as Error);
    }
  };
  function lost(error: Error) {
    stopListening = undefined;
    leaseUntil = 0;
    pendingProbe = undefined;
    drop();
    if (stopped) return;
    logger.warn({ err: { message: error.message } }, 'key cache: listener lost; API keys are read from the database');
    // One attempt at a time, whichever way the loss was told.
    clearTimeout(relistenTimer);
    relistenTimer = setTimeout(() => void listen(), RELISTEN_MS);
    relistenTimer.unref();
  }

  let probing: Promise<void> = Promise.resolve();
  let probeFailing = false;
  const probeOnce = async () => {
    if (!stopListening) return;
    const sentAt = performance.now();
    const n = await keyCacheBarriers.probe(storage.db, instanceId, seen);
    probeFailing = false;
    if (n === undefined) return;
    if (seen >= n) renew(sentAt);
    else pendingProbe = { n, sentAt };
  };

  await listen();
  const probeTimer = setInterval(() => {
    probing = probeOnce().catch((error: Error) => {
      // Once per outage: the heartbeat already reports a database that does not answer.
      if (!probeFailing) logger.warn({ err: { message: error.message } }, 'key cache: lease probe failed');
      probeFailing = true;
    });
  }, PROBE_INTERVAL_MS);
  probeTimer.unref();

  return {
    async lookup(keyHash, read) {
      if (options.enabled && usable()) {
        const hit = entries.get(keyHash);
        if (hit) {
          hits++;
          return hit;
        }
      }
      misses++;
      const before = generation;
      const trusted = options.enabled && usable();
      const row = await read();
      if (row && trusted && before === generation && usable()) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
        entries.set(keyHash, row);
      }
      return row;
    },
    stats: () => ({ enabled: options.enabled, usable: usable(), entries: entries.size, hits, misses }),
    async stop() {
      stopped = true;
      clearInterval(probeTimer);
      clearTimeout(relistenTimer);
      await probing;
      await acking;
      await stopListening?.();
    },
  };
}

/**
 * Called after a revocation has committed, before it is answered: sends a barrier and waits until every
 * live instance has seen it (so has dropped what the revocation made wrong), at most one lease (after
 * which an instance that did not see it no longer trusts its cache). Never inside the revoking
 * transaction: the barrier must come after its commit.
 */
export async function awaitKeyCacheAcknowledgements(ctx: { db: Db }): Promise<void> {
  const barrier = await keyCacheBarriers.sendBarrier(ctx.db, 'r');
  const deadline = performance.now() + KEY_CACHE_LEASE_MS + 100;
  while ((await keyCacheBarriers.unacknowledged(ctx.db, barrier)) > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
