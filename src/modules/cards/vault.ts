import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { pooledRandomBytes } from '../../lib/crypto.js';

export interface VaultKeys {
  /** The key new ciphertexts use. */
  current: { id: string; key: Buffer };
  /** Older keys still able to decrypt (rotation). */
  previous: Array<{ id: string; key: Buffer }>;
  /** Secret of the keyed fingerprint: stable across encryption-key rotation. */
  fingerprintSecret: string;
}

/**
 * Encryption at rest of PANs (and of anything else that must never sit in clear, such as stored
 * idempotent responses carrying a card token): AES-256-GCM with a fresh 96-bit IV per value; the
 * key id is stored beside the ciphertext so keys rotate without re-encrypting everything at once.
 */
export function createVault(keys: VaultKeys) {
  const byId = new Map([keys.current, ...keys.previous].map((k) => [k.id, k.key]));
  return {
    encrypt(plaintext: string): { ciphertext: string; keyId: string } {
      const iv = pooledRandomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keys.current.key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'), keyId: keys.current.id };
    },

    decrypt(ciphertext: string, keyId: string): string {
      const key = byId.get(keyId);
      if (!key) throw new Error(`card encryption key ${keyId} is not configured`);
      const raw = Buffer.from(ciphertext, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },

    /** One self-describing string, "<keyId>.<ciphertext>", for values kept encrypted in a text column. */
    seal(plaintext: string): string {
      const { ciphertext, keyId } = this.encrypt(plaintext);
      return `${keyId}.${ciphertext}`;
    },

    unseal(sealed: string): string {
      const dot = sealed.indexOf('.');
      return this.decrypt(sealed.slice(dot + 1), sealed.slice(0, dot));
    },

    /** Same card → same fingerprint for this deployment; useless to anyone without the secret. */
    fingerprint(pan: string): string {
      return createHmac('sha256', keys.fingerprintSecret).update(pan).digest('hex');
    },
  };
}

export type Vault = ReturnType<typeof createVault>;

/** "k2:<base64 32 bytes>,k1:<base64>" — the first is current. */
export function parseVaultKeys(value: string): Array<{ id: string; key: Buffer }> {
  return value.split(',').map((entry) => {
    const [id, encoded] = entry.trim().split(':');
    const key = Buffer.from(encoded ?? '', 'base64');
    if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
      throw new Error('each entry must be <id>:<base64 of 32 bytes>');
    }
    return { id, key };
  });
}
