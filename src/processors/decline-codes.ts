/**
 * The gateway's decline codes (ISO 8583 style, docs/errors.md) with the reason each answers: what every
 * connector maps its processor's own codes to. A processor code a connector does not know is 05, the
 * generic refusal.
 */
export const DECLINE_REASONS = {
  '05': 'do not honor',
  '51': 'insufficient funds',
  '54': 'expired card',
  '57': 'transaction not permitted',
  '61': 'exceeds withdrawal limit',
} as const;

export type DeclineCode = keyof typeof DECLINE_REASONS;

export const DEFAULT_DECLINE_CODE: DeclineCode = '05';
