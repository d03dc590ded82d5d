import { minorUnit } from '../../lib/money.js';

const MAX_EXPONENT = 4;

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
