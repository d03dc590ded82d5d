import { describe, expect, it } from 'vitest';
import {
  brandOf,
  cardNumberError,
  cvvError,
  expiryError,
  expiryForApi,
  formatCardNumber,
  formatExpiry,
} from '../../web/checkout/src/card.js';

describe('the checkout page card checks', () => {
  it('detects the brand and groups the digits as printed on the card', () => {
    expect(brandOf('4242').name).toBe('visa');
    expect(brandOf('5555').name).toBe('mastercard');
    expect(brandOf('2221').name).toBe('mastercard');
    expect(brandOf('3782').name).toBe('amex');
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('378282246310005')).toBe('3782 822463 10005');
    expect(formatCardNumber('4242 4242 4242 4242 999 9')).toBe('4242 4242 4242 4242 999');
  });

  it('refuses numbers failing Luhn or the brand length before sending', () => {
    expect(cardNumberError('4242 4242 4242 4242')).toBeNull();
    expect(cardNumberError('4242 4242 4242 4241')).toMatch(/not valid/);
    expect(cardNumberError('3782 822463 1000')).toMatch(/not valid/);
    expect(cardNumberError('')).toMatch(/Enter your card number/);
  });

  it('reads MM / YY, valid through the end of the month, at most 20 years ahead', () => {
    const now = new Date(2026, 2, 15);
    expect(formatExpiry('1')).toBe('1');
    expect(formatExpiry('5')).toBe('05 / ');
    expect(formatExpiry('1230')).toBe('12 / 30');
    expect(expiryForApi('12 / 30')).toBe('12/30');
    expect(expiryError('03 / 26', now)).toBeNull();
    expect(expiryError('02 / 26', now)).toMatch(/expired/);
    expect(expiryError('13 / 27', now)).toMatch(/month/);
    expect(expiryError('01 / 50', now)).toMatch(/year/);
    expect(expiryError('1', now)).toMatch(/MM \/ YY/);
  });

  it('wants four CVV digits for American Express and three for the others', () => {
    expect(cvvError('123', '4242424242424242')).toBeNull();
    expect(cvvError('123', '378282246310005')).toMatch(/4-digit/);
    expect(cvvError('1234', '378282246310005')).toBeNull();
    expect(cvvError('12a', '4242424242424242')).toMatch(/digits only/);
  });
});
