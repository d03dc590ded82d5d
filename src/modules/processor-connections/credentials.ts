import { Value } from '@sinclair/typebox/value';
import { AppError } from '../../errors.js';
import type { KeyMode } from '../api-keys/index.js';
import type { Vault } from '../cards/index.js';
import {
  AdyenCredentials,
  SandboxCredentials,
  StripeCredentials,
  type AdyenCredentials as Adyen,
  type StripeCredentials as Stripe,
} from './schemas.js';
import type { ProcessorKind } from './tables.js';

/** Each processor's credentials, by processor: what the routing and the webhook receivers get decrypted. */
export type CredentialsOf = { stripe: Stripe; adyen: Adyen; sandbox: Record<string, never> };
export type ProcessorCredentials = CredentialsOf[ProcessorKind];

const SCHEMAS = { stripe: StripeCredentials, adyen: AdyenCredentials, sandbox: SandboxCredentials };

/** A refused credential is named by its field; its value is never echoed (it may be a real secret). */
const refused = (field: string, message: string, value: unknown = '[redacted]') =>
  new AppError('INVALID_FORMAT', message, { details: { field, value } });

/**
 * The credentials a connection of this processor and mode may hold, only their own fields kept. A key of
 * the other mode is refused both ways: a live key on a test connection would move real money in tests, a
 * test key on a live one would fail every live payment. The sandbox moves no money, so it is test mode only.
 */
export function checkedCredentials(
  processor: ProcessorKind,
  mode: KeyMode,
  credentials: unknown,
): ProcessorCredentials {
  if (!Value.Check(SCHEMAS[processor], credentials ?? {})) {
    const fields = Object.keys(SCHEMAS[processor].properties);
    throw refused(
      'credentials',
      `Field 'credentials' must be the ${processor} credentials: ${fields.length ? fields.join(', ') : '{}'}`,
    );
  }
  if (processor === 'stripe') {
    const { secretKey, webhookSecret } = credentials as Stripe;
    const prefix = `sk_${mode}_`;
    if (!secretKey.startsWith(prefix)) {
      throw refused(
        'credentials.secretKey',
        `A ${mode}-mode Stripe connection needs a secret key starting with ${prefix} (no other mode's, restricted or publishable key)`,
      );
    }
    return { secretKey, webhookSecret };
  }
  if (processor === 'adyen') {
    const { apiKey, merchantAccount, hmacKey, environment } = credentials as Adyen;
    if (environment !== mode) {
      throw refused(
        'credentials.environment',
        `A ${mode}-mode Adyen connection needs environment "${mode}"`,
        environment,
      );
    }
    return { apiKey, merchantAccount, hmacKey, environment };
  }
  if (mode !== 'test') {
    throw refused('processor', 'The built-in sandbox moves no money: it can be connected in test mode only', processor);
  }
  return {};
}

/** Sealed as one JSON document under the vault's current key, whose id is kept for rotation. */
export function sealCredentials(vault: Vault, credentials: ProcessorCredentials) {
  const { ciphertext, keyId } = vault.encrypt(JSON.stringify(credentials));
  return { credentials_ciphertext: ciphertext, credentials_key_id: keyId };
}

export function openCredentials(
  vault: Vault,
  row: { credentials_ciphertext: string; credentials_key_id: string },
): ProcessorCredentials {
  return JSON.parse(vault.decrypt(row.credentials_ciphertext, row.credentials_key_id)) as ProcessorCredentials;
}
