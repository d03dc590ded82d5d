/** Card number facts the gateway checks before any processor sees the card. */

export function passesLuhn(number: string): boolean {
  if (!/^\d{8,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

const BRANDS: Array<[string, RegExp]> = [
  ['amex', /^3[47]/],
  ['diners', /^3(0[0-5]|[689])/],
  ['jcb', /^35(2[89]|[3-8])/],
  ['visa', /^4/],
  ['mastercard', /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/],
  ['discover', /^(6011|65|64[4-9])/],
  ['unionpay', /^62/],
];

export function cardBrand(number: string): string {
  return BRANDS.find(([, pattern]) => pattern.test(number))?.[0] ?? 'unknown';
}

/** Amex CVVs have four digits, every other brand three. */
export const cvvLength = (brand: string) => (brand === 'amex' ? 4 : 3);

/** MM/YY → month and four-digit year; undefined when the month is not 01–12. */
export function parseExpiration(expiration: string): { month: number; year: number } | undefined {
  const match = /^(\d{2})\/(\d{2})$/.exec(expiration);
  if (!match) return undefined;
  const month = Number(match[1]);
  if (month < 1 || month > 12) return undefined;
  return { month, year: 2000 + Number(match[2]) };
}

/** A card is valid through the last day of its expiry month. */
export function isExpired(expiry: { month: number; year: number }, now: Date): boolean {
  const endOfMonth = Date.UTC(expiry.year, expiry.month, 1);
  return now.getTime() >= endOfMonth;
}

/** BIN (first 6) and last 4: the only parts of a PAN the gateway ever shows. */
export const bin = (number: string) => number.slice(0, 6);
export const last4 = (number: string) => number.slice(-4);
