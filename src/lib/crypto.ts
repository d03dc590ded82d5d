import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes are drawn from a pool filled 4 KB at a time: one call into the CSPRNG per ~100 request ids
 * and per ~300 card IVs instead of one per id or IV, because a call into the CSPRNG costs far more than
 * reading the pool, most of all after the thread was idle. Each byte is used once.
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let used = 0;
function randomByte(): number {
  if (used === pool.length) refill();
  return pool[used++];
}

function refill(): void {
  pool = randomBytes(POOL_SIZE);
  used = 0;
}

/** `size` random bytes (at most the pool's 4 KB) of the caller's own, as `crypto.randomBytes` gives. */
export function pooledRandomBytes(size: number): Buffer {
  if (pool.length - used < size) refill();
  const out = Buffer.from(pool.subarray(used, used + size));
  used += size;
  return out;
}

/** Uniformly random base62 string (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** One-shot `hash` (Node 20.12+): a quarter of createHash's time for a short input such as an API key, hashed on every call. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

export function hmacHex(algorithm: 'sha256' | 'sha512', secret: string, data: string | Buffer): string {
  return createHmac(algorithm, secret).update(data).digest('hex');
}

/** Constant-time comparison of two strings of possibly different length. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
