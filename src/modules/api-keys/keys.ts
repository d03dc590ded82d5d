import { randomBase62, sha256Hex } from '../../lib/crypto.js';
import type { KeyMode } from './tables.js';

/** svc_test_sk_ / svc_live_sk_ followed by 40 random base62 characters (~238 bits). */
export const API_KEY_PATTERN = /^svc_(test|live)_sk_[0-9A-Za-z]{32,128}$/;
const RANDOM_LENGTH = 40;

export function generateApiKey(mode: KeyMode): { key: string; hash: string; displayPrefix: string } {
  const key = `svc_${mode}_sk_${randomBase62(RANDOM_LENGTH)}`;
  return { key, hash: hashApiKey(key), displayPrefix: key.slice(0, 16) };
}

/**
 * Keys are looked up by SHA-256: they carry enough entropy that a slow hash adds nothing,
 * and a fast one keeps authentication to one indexed read per request.
 */
export const hashApiKey = (key: string) => sha256Hex(key);
