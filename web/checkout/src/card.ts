/** Card checks the page runs before anything is sent (the gateway checks again). No DOM here. */

export interface Brand {
  name: 'visa' | 'mastercard' | 'amex' | 'discover' | 'rupay' | 'unknown';
  label: string;
  /** Digit group sizes for display: 4-4-4-4, or 4-6-5 for American Express. */
  groups: number[];
  lengths: number[];
  cvvLength: number;
}

const UNKNOWN: Brand = {
  name: 'unknown',
  label: 'Card',
  groups: [4, 4, 4, 4, 3],
  lengths: [12, 13, 14, 15, 16, 17, 18, 19],
  cvvLength: 3,
};

const BRANDS: Array<{ prefix: RegExp; brand: Brand }> = [
  {
    prefix: /^3[47]/,
    brand: { name: 'amex', label: 'American Express', groups: [4, 6, 5], lengths: [15], cvvLength: 4 },
  },
  {
    prefix: /^4/,
    brand: { name: 'visa', label: 'Visa', groups: [4, 4, 4, 4, 3], lengths: [13, 16, 19], cvvLength: 3 },
  },
  {
    prefix: /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/,
    brand: { name: 'mastercard', label: 'Mastercard', groups: [4, 4, 4, 4], lengths: [16], cvvLength: 3 },
  },
  {
    prefix: /^(6011|65|64[4-9])/,
    brand: { name: 'discover', label: 'Discover', groups: [4, 4, 4, 4, 3], lengths: [16, 19], cvvLength: 3 },
  },
  {
    prefix: /^(60|652|81|82)/,
    brand: { name: 'rupay', label: 'RuPay', groups: [4, 4, 4, 4], lengths: [16], cvvLength: 3 },
  },
];

export const digitsOf = (value: string) => value.replace(/\D/g, '');

export function brandOf(digits: string): Brand {
  return BRANDS.find((b) => b.prefix.test(digits))?.brand ?? UNKNOWN;
}

/** "4242424242424242" → "4242 4242 4242 4242", cut at the brand's longest length. */
export function formatCardNumber(value: string): string {
  const brand = brandOf(digitsOf(value));
  const digits = digitsOf(value).slice(0, Math.max(...brand.lengths));
  const parts: string[] = [];
  let at = 0;
  for (const size of brand.groups) {
    if (at >= digits.length) break;
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) parts.push(digits.slice(at));
  return parts.join(' ');
}

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** "1", "12", "123" → "1", "12 / ", "12 / 3"; a first digit above 1 is a month: "5" → "05 / ". */
export function formatExpiry(value: string, deleting = false): string {
  let digits = digitsOf(value).slice(0, 4);
  if (/^[2-9]$/.test(digits)) digits = `0${digits}`;
  if (digits.length < 2) return digits;
  if (digits.length === 2) return deleting ? digits : `${digits} / `;
  return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
}

/** Each check answers the message to show, or null when the value is fine. */
export function cardNumberError(value: string): string | null {
  const digits = digitsOf(value);
  if (!digits) return 'Enter your card number.';
  const brand = brandOf(digits);
  if (!brand.lengths.includes(digits.length) || !luhnValid(digits))
    return 'This card number is not valid. Check it and try again.';
  return null;
}

/** The card is valid through the last day of its expiry month; at most 20 years ahead. */
export function expiryError(value: string, now: Date): string | null {
  const digits = digitsOf(value);
  if (!digits) return 'Enter the expiry date as MM / YY.';
  if (digits.length !== 4) return 'Enter the expiry date as MM / YY.';
  const month = Number(digits.slice(0, 2));
  const year = 2000 + Number(digits.slice(2));
  if (month < 1 || month > 12) return 'The expiry month must be between 01 and 12.';
  const thisYear = now.getFullYear();
  const thisMonth = now.getMonth() + 1;
  if (year < thisYear || (year === thisYear && month < thisMonth)) return 'This card has expired.';
  if (year > thisYear + 20) return 'Check the expiry year.';
  return null;
}

/** MM/YY as the API wants it. */
export const expiryForApi = (value: string) => {
  const digits = digitsOf(value);
  return `${digits.slice(0, 2)}/${digits.slice(2, 4)}`;
};

export function cvvError(value: string, cardNumber: string): string | null {
  const expected = brandOf(digitsOf(cardNumber)).cvvLength;
  if (!/^\d*$/.test(value)) return 'The security code has digits only.';
  if (value.length !== expected) return `Enter the ${expected}-digit security code.`;
  return null;
}
