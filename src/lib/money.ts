/**
 * Money at the edge: clients send amounts as JSON numbers in major units; the gateway stores
 * integer minor units and converts through decimal strings, never through float arithmetic
 * (19.99 * 100 is 1998.9999999999998).
 */

/**
 * ISO 4217 list one (SIX, published 2026-01-01): every active code that has minor units.
 * Codes whose minor unit is "N.A." (XAU, XDR, XTS, XXX, …) name no payable currency and are
 * left out. Withdrawn codes (BGN, HRK, ANG, CUC, SLL, ZWL, …) are left out too.
 */
const ZERO_DECIMALS = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE_DECIMALS = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR_DECIMALS = 'CLF UYW';
const TWO_DECIMALS =
  'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
  'CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP ' +
  'GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK ' +
  'LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO ' +
  'NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS ' +
  'SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST ' +
  'XAD XCD XCG YER ZAR ZMW ZWG';

const MINOR_UNITS: ReadonlyMap<string, number> = new Map(
  (
    [
      [ZERO_DECIMALS, 0],
      [TWO_DECIMALS, 2],
      [THREE_DECIMALS, 3],
      [FOUR_DECIMALS, 4],
    ] as const
  ).flatMap(([codes, digits]) => codes.split(' ').map((code) => [code, digits] as const)),
);

/** Upper-cased ISO code when `code` names an active currency (any case), else undefined. */
export function normalizeCurrency(code: string): string | undefined {
  const upper = code.toUpperCase();
  return MINOR_UNITS.has(upper) ? upper : undefined;
}

/** Number of decimals of the currency's minor unit (2 for EUR, 0 for JPY, 3 for KWD). */
export function minorUnit(currency: string): number {
  const digits = MINOR_UNITS.get(currency.toUpperCase());
  if (digits === undefined) throw new Error(`unknown currency ${currency}`);
  return digits;
}

/**
 * Major units → integer minor units, exactly: 19.99 EUR → 1999, 1000 JPY → 1000, 1.005 KWD → 1005.
 * Returns undefined when the amount has more decimals than the currency allows (10.001 EUR,
 * 0.1 JPY, 0.30000000000000004 EUR), or is not a finite number.
 */
export function toMinor(amount: number, currency: string): number | undefined {
  const digits = minorUnit(currency);
  const decimal = plainDecimal(amount);
  if (decimal === undefined) return undefined;
  const [whole, fraction = ''] = decimal.replace(/^-/, '').split('.');
  if (fraction.length > digits) return undefined;
  const minor = Number(BigInt(whole + fraction.padEnd(digits, '0')));
  if (!Number.isSafeInteger(minor)) return undefined;
  return decimal.startsWith('-') ? -minor : minor;
}

/** Integer minor units → major units as a JSON number: 1999 EUR → 19.99, 1005 KWD → 1.005. */
export function fromMinor(minor: number, currency: string): number {
  // The shortest decimal string parses to the double nearest to it: "19.99" → 19.99.
  return Number(decimalString(minor, currency));
}

/** Integer minor units → the exact decimal with every digit of the minor unit: 1050 EUR → "10.50", 7 JPY → "7". */
export function decimalString(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new Error(`minor amount ${minor} is not a safe integer`);
  const digits = minorUnit(currency);
  if (digits === 0) return String(minor);
  const sign = minor < 0 ? '-' : '';
  const padded = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/**
 * The number as a plain decimal string without exponent. JavaScript prints the shortest string
 * that round-trips to the same double, so 19.99 gives "19.99", not the binary expansion.
 */
function plainDecimal(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, intPart, fracPart = '', exponentText] = match;
  const exponent = Number(exponentText);
  const digits = intPart + fracPart;
  const point = intPart.length + exponent;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
