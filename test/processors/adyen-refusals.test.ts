import { describe, expect, it } from 'vitest';
import { declineOf } from '../../src/processors/adyen/refusals.js';
import { outcomeOf } from '../../src/processors/adyen/outcomes.js';
import { DECLINE_REASONS } from '../../src/processors/decline-codes.js';

// The refusal reasons the simulator does not play, and answers the gateway cannot follow.

describe('Adyen refusal reasons', () => {
  it.each([
    ['23', 'Transaction Not Permitted', '57'],
    ['25', 'Restricted Card', '57'],
    ['28', 'Withdrawal amount exceeded', '61'],
    ['29', 'Withdrawal count exceeded', '61'],
    ['12', 'Not enough balance', '51'],
    ['6', 'Expired Card', '54'],
    ['2', 'Refused', '05'],
  ])('maps code %s (%s) to %s', (code, text, ours) => {
    expect(declineOf(code, text)).toEqual({
      declineCode: ours,
      declineReason: `${DECLINE_REASONS[ours as keyof typeof DECLINE_REASONS]} (${text})`,
    });
    // Notifications carry only the text.
    expect(declineOf(undefined, text).declineCode).toBe(ours);
  });

  it('maps an unknown or missing reason to the default 05', () => {
    expect(declineOf('999', 'Something new')).toEqual({
      declineCode: '05',
      declineReason: 'do not honor (Something new)',
    });
    expect(declineOf(undefined, undefined)).toEqual({ declineCode: '05', declineReason: 'do not honor' });
  });

  it('maps only codes of the gateway', () => {
    for (const code of [
      '0',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
      '11',
      '12',
      '14',
      '15',
      '16',
      '20',
      '24',
      '46',
    ]) {
      expect(Object.keys(DECLINE_REASONS)).toContain(declineOf(code, undefined).declineCode);
    }
  });
});

describe('Adyen answers the gateway does not follow', () => {
  it.each([
    ['native 3-D Secure 2', { resultCode: 'IdentifyShopper', action: { type: 'threeDS2' } }],
    [
      'a POST redirect',
      { resultCode: 'RedirectShopper', action: { type: 'redirect', method: 'POST', url: 'https://x' } },
    ],
    ['a result code it does not know', { resultCode: 'PresentToShopper' }],
  ])('%s is a non-retryable error', (_, answer) => {
    expect(outcomeOf(answer, 'pay_1', true)).toMatchObject({ kind: 'error', retryable: false });
  });
});
