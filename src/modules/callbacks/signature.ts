import { AppError } from '../../errors.js';
import { hmacHex, safeEqual } from '../../lib/crypto.js';

export const SIGNATURE_HEADER = 'x-webhook-signature';

export type SignatureCheck = 'valid' | 'missing' | 'malformed' | 'mismatch';

/** Hex length → HMAC algorithm (decisions.md: SHA-512 primary, SHA-256 accepted). */
const ALGORITHM_BY_LENGTH: Record<number, 'sha512' | 'sha256'> = { 128: 'sha512', 64: 'sha256' };

/**
 * Checks a hex HMAC of `signed` (the raw body bytes) in either letter case. Pure and total:
 * any header value, however odd, yields a verdict and never throws.
 */
export function checkSignature(
  secret: string,
  signed: string | Buffer,
  header: string | string[] | undefined,
): SignatureCheck {
  // A repeated header is ambiguous: refuse it rather than pick one.
  if (Array.isArray(header)) return 'malformed';
  if (header === undefined || header === '') return 'missing';
  const algorithm = ALGORITHM_BY_LENGTH[header.length];
  if (!algorithm || !/^[0-9a-fA-F]+$/.test(header)) return 'malformed';
  return safeEqual(header.toLowerCase(), hmacHex(algorithm, secret, signed)) ? 'valid' : 'mismatch';
}

const REASONS: Record<Exclude<SignatureCheck, 'valid'>, string> = {
  missing: 'The X-Webhook-Signature header is missing',
  malformed:
    'X-Webhook-Signature must be a hex HMAC-SHA512 (128 characters) or HMAC-SHA256 (64 characters) of the raw body',
  mismatch: 'X-Webhook-Signature does not match the body',
};

export function signatureError(check: Exclude<SignatureCheck, 'valid'>): AppError {
  return new AppError('INVALID_WEBHOOK_SIGNATURE', REASONS[check], { details: { reason: check } });
}
