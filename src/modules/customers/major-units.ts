/**
 * Minor-unit exponents of ISO 4217 currencies that do not use 2 decimals.
 * Private to customers until src/lib/money.ts lands; then use that one instead.
 */
const EXPONENTS: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0,
  UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};
const MAX_EXPONENT = 4;

export function minorUnit(currency: string): number {
  return EXPONENTS[currency.toUpperCase()] ?? 2;
}

/** Integer minor units → major units (1234 USD → 12.34; 1234 JPY → 1234). */
export function toMajorUnits(minor: number, currency: string): number {
  return minor / 10 ** minorUnit(currency);
}

/**
 * Sum of amounts in several currencies, each in its own major units, added at face value.
 * Added as integers at the finest exponent and divided once, so 0.1 + 0.2 is 0.3.
 */
export function sumMajorUnits(minorByCurrency: Record<string, number>): number {
  let scaled = 0;
  for (const [currency, minor] of Object.entries(minorByCurrency)) {
    scaled += minor * 10 ** (MAX_EXPONENT - minorUnit(currency));
  }
  return scaled / 10 ** MAX_EXPONENT;
}
