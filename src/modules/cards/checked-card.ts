import { AppError } from '../../errors.js';
import { bin, cardBrand, cvvLength, isExpired, last4, parseExpiration, passesLuhn } from './card-number.js';
import type { Vault } from './vault.js';

/** A card as the payer typed it (a payment's source). */
export interface TypedCard {
  number: string;
  expiration: string;
  cvv: string;
  holder: string;
}

export interface CheckedCard {
  number: string;
  cvv: string;
  holder: string;
  brand: string;
  expiry: { month: number; year: number };
}

/** Rejects what no processor should see: Luhn failure, bad or past expiry, CVV length for the brand. */
export function checkCard(source: TypedCard, now: Date): CheckedCard {
  const invalid = (field: string, reason: string) =>
    new AppError('INVALID_CARD', `The card ${field} is invalid: ${reason}`, { details: { field, reason } });
  if (!/^\d+$/.test(source.number) || !passesLuhn(source.number)) throw invalid('number', 'failed the Luhn check');
  const expiry = parseExpiration(source.expiration);
  if (!expiry) throw invalid('expiration', 'month must be 01-12');
  if (isExpired(expiry, now)) throw invalid('expiration', 'card has expired');
  const brand = cardBrand(source.number);
  if (source.cvv.length !== cvvLength(brand))
    throw invalid('cvv', `${brand} cards have a ${cvvLength(brand)}-digit CVV`);
  return { number: source.number, cvv: source.cvv, holder: source.holder, brand, expiry };
}

export function vaultFields(vault: Vault, card: CheckedCard) {
  const { ciphertext, keyId } = vault.encrypt(card.number);
  return {
    pan_ciphertext: ciphertext,
    key_id: keyId,
    fingerprint: vault.fingerprint(card.number),
    brand: card.brand,
    bin: bin(card.number),
    last4: last4(card.number),
    exp_month: card.expiry.month,
    exp_year: card.expiry.year,
    holder_name: card.holder,
  };
}
