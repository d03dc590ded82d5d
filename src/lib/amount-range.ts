import { Type } from '@sinclair/typebox';
import { AppError, invalidFormat } from '../errors.js';
import { normalizeCurrency, toMinor } from './money.js';

/**
 * The money filters of the reporting lists: a currency and an amount range in its major units.
 * A bare amount means different money in EUR and JPY, so an amount bound needs the currency.
 */
export const AmountRangeQuery = {
  currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code; any case' })),
  amountFrom: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 999_999_999.99,
      description: 'At least this amount, in major units of currency',
    }),
  ),
  amountTo: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 999_999_999.99,
      description: 'At most this amount, in major units of currency',
    }),
  ),
};

export interface AmountRange {
  currency?: string;
  /** Minor units, inclusive. */
  minAmount?: number;
  maxAmount?: number;
}

export function amountRange(query: { currency?: string; amountFrom?: number; amountTo?: number }): AmountRange {
  const currency = query.currency === undefined ? undefined : normalizeCurrency(query.currency);
  if (query.currency !== undefined && currency === undefined)
    throw invalidFormat('currency', query.currency, 'currency must be an active ISO 4217 code');
  if ((query.amountFrom !== undefined || query.amountTo !== undefined) && currency === undefined)
    throw new AppError(
      'VALIDATION_ERROR',
      'amountFrom and amountTo need currency (an amount means different money per currency)',
      {
        details: { field: 'currency' },
      },
    );
  const minor = (field: 'amountFrom' | 'amountTo') => {
    const value = query[field];
    if (value === undefined) return undefined;
    const converted = toMinor(value, currency!);
    if (converted === undefined)
      throw invalidFormat(field, value, `${field} has more decimals than ${currency} allows`);
    return converted;
  };
  return { currency, minAmount: minor('amountFrom'), maxAmount: minor('amountTo') };
}
