import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripUnknownFields } from '../../src/http/validation.js';
import { csvCell } from '../../src/lib/csv.js';
import { fromMinor, minorUnit, toMinor } from '../../src/lib/money.js';
import { checkSignature } from '../../src/modules/callbacks/signature.js';
import { passesLuhn } from '../../src/modules/cards/card-number.js';
import { createVault } from '../../src/modules/cards/vault.js';
import { paymentSourcesFor, requestSourcesFor, requestStatusFor } from '../../src/modules/state-machine.js';
import type { PaymentRequestStatus } from '../../src/modules/payment-requests/index.js';
import type { PaymentStatus } from '../../src/modules/payments/index.js';

// Pure rules checked over generated inputs: each property states what must hold for every input.

const CURRENCIES = ['EUR', 'USD', 'JPY', 'KWD', 'BHD', 'CLP'];

describe('money conversion', () => {
  it('minor → major → minor is the identity for every safe amount', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.integer({ min: -99_999_999_999, max: 99_999_999_999 }),
        (currency, minor) => {
          expect(toMinor(fromMinor(minor, currency), currency)).toBe(minor);
        },
      ),
    );
  });

  it('refuses more decimals than the currency has', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.integer({ min: 1, max: 9_999_999 }),
        fc.integer({ min: 1, max: 9 }),
        (currency, whole, lastDigit) => {
          const digits = minorUnit(currency);
          const amount = Number(`${whole}.${'0'.repeat(digits)}${lastDigit}`);
          // The extra digit is beyond the minor unit, so the amount is not representable.
          if (String(amount).includes('.')) expect(toMinor(amount, currency)).toBeUndefined();
        },
      ),
    );
  });
});

/** A number with a valid Luhn check digit appended. */
function withCheckDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (passesLuhn(body + d)) return body + d;
  throw new Error('no check digit');
}

describe('Luhn', () => {
  const bodies = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 7, maxLength: 18 });

  it('exactly one check digit completes every number', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        expect([...'0123456789'].filter((d) => passesLuhn(body + d))).toHaveLength(1);
      }),
    );
  });

  it('catches every single-digit typo', () => {
    fc.assert(
      fc.property(bodies, fc.nat(), fc.integer({ min: 1, max: 9 }), (body, at, delta) => {
        const number = withCheckDigit(body);
        const i = at % number.length;
        const typo = number.slice(0, i) + ((Number(number[i]) + delta) % 10) + number.slice(i + 1);
        expect(passesLuhn(typo)).toBe(false);
      }),
    );
  });
});

describe('card vault', () => {
  const vault = createVault({
    current: { id: 'k2', key: Buffer.alloc(32, 2) },
    previous: [{ id: 'k1', key: Buffer.alloc(32, 1) }],
    fingerprintSecret: 'fingerprint-secret',
  });

  it('decrypts every value it encrypted, under the current key', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 64 }), (plaintext) => {
        const { ciphertext, keyId } = vault.encrypt(plaintext);
        expect(keyId).toBe('k2');
        expect(vault.decrypt(ciphertext, keyId)).toBe(plaintext);
      }),
    );
  });

  it("gives every encryption an IV of its own, across the random pool's refills", () => {
    // 2,000 IVs of 12 bytes draw ~6 refills of the 4 KB pool; AES-GCM must never reuse an IV under one key.
    const ivs = Array.from({ length: 2000 }, () =>
      Buffer.from(vault.encrypt('4242424242424242').ciphertext, 'base64').subarray(0, 12).toString('hex'),
    );
    expect(new Set(ivs).size).toBe(ivs.length);
  });
});

describe('callback signature check', () => {
  const secret = 'whsec_property_test_secret';
  const sign = (algorithm: 'sha512' | 'sha256', body: string) =>
    createHmac(algorithm, secret).update(body).digest('hex');

  it('accepts the HMAC of the exact body in either algorithm and letter case', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom('sha512' as const, 'sha256' as const),
        fc.boolean(),
        (body, algorithm, upper) => {
          const signature = sign(algorithm, body);
          expect(checkSignature(secret, body, upper ? signature.toUpperCase() : signature)).toBe('valid');
        },
      ),
    );
  });

  it('refuses any other body', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (body, other) => {
        fc.pre(body !== other);
        expect(checkSignature(secret, other, sign('sha512', body))).toBe('mismatch');
      }),
    );
  });

  it('gives a verdict for any header value and never throws', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.oneof(fc.string(), fc.array(fc.string())), { nil: undefined }),
        (body, header) => {
          expect(['valid', 'missing', 'malformed', 'mismatch']).toContain(checkSignature(secret, body, header));
        },
      ),
    );
  });
});

describe('unknown-field stripping', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string' },
      address: { type: 'object', properties: { city: { type: 'string' } } },
      metadata: { type: 'object', additionalProperties: true },
    },
  };
  const KNOWN = new Set(['name', 'address', 'metadata']);
  const key = fc.oneof(
    fc.constantFrom('name', 'address', 'metadata', 'city', 'constructor', '__proto__', 'toString'),
    fc.string({ minLength: 1, maxLength: 8 }),
  );

  it('keeps exactly the defined members, names every removed one, and leaves open maps alone', () => {
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue()),
        fc.dictionary(key, fc.string()),
        fc.dictionary(key, fc.string()),
        (top, address, metadata) => {
          const body: Record<string, unknown> = { ...top, address: { ...address }, metadata: { ...metadata } };
          const before = Object.keys(body);
          const removed = stripUnknownFields(schema, body);
          expect(Object.keys(body).every((k) => KNOWN.has(k))).toBe(true);
          expect(removed.filter((path) => !path.startsWith('address.')).sort()).toEqual(
            before.filter((k) => !KNOWN.has(k)).sort(),
          );
          expect(Object.keys(body.address as object).every((k) => k === 'city')).toBe(true);
          expect(body.metadata).toEqual(metadata);
        },
      ),
    );
  });
});

describe('state machine tables', () => {
  const PAYMENT: PaymentStatus[] = ['pending', 'requires_action', 'authorized', 'succeeded', 'failed', 'canceled'];
  const REQUEST: PaymentRequestStatus[] = [
    'open',
    'processing',
    'authorized',
    'paid',
    'partially_refunded',
    'refunded',
    'canceled',
    'expired',
  ];
  const FINAL_PAYMENT: PaymentStatus[] = ['succeeded', 'failed', 'canceled'];

  it('a payment never leaves a final status and never moves back to pending', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PAYMENT), fc.constantFrom(...FINAL_PAYMENT), (to, final) => {
        expect(paymentSourcesFor(to)).not.toContain(final);
        expect(paymentSourcesFor('pending')).toEqual([]);
      }),
    );
  });

  it('every payment move takes its request along a legal request move', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PAYMENT), (to) => {
        const requestTo = requestStatusFor(to);
        expect(REQUEST).toContain(requestTo);
        // The request was processing (or authorized) while the attempt ran: that is a legal source, or the same status.
        const before =
          to === 'pending' || to === 'requires_action' ? 'open' : to === 'canceled' ? 'authorized' : 'processing';
        expect(requestTo === before || requestSourcesFor(requestTo).includes(before as PaymentRequestStatus)).toBe(
          true,
        );
      }),
    );
  });

  it('canceled and expired requests are final', () => {
    fc.assert(
      fc.property(fc.constantFrom(...REQUEST), (to) => {
        expect(requestSourcesFor(to)).not.toContain('canceled');
        expect(requestSourcesFor(to)).not.toContain('expired');
      }),
    );
  });
});

describe('CSV cells', () => {
  /** The cell as a spreadsheet reads it: the quotes taken off. */
  const unquoted = (cell: string) => cell.slice(1, -1).replace(/""/g, '"');
  const text = fc.string({
    unit: fc.constantFrom('=', '+', '-', '@', ',', ';', '|', '\t', '\r', '\n', ' ', '"', "'", 'a', '1'),
  });

  it('no text, split on any separator a locale may use, starts a formula; only apostrophes are added', () => {
    fc.assert(
      fc.property(text, (value) => {
        const cell = csvCell(value);
        expect(cell).toMatch(/^"[^]*"$/);
        const shown = unquoted(cell);
        expect(shown.replace(/'/g, '')).toBe(value.replace(/'/g, ''));
        expect(shown).not.toMatch(/^[\t\r]/);
        for (const piece of shown.split(/[,;\t|\r\n]/)) expect(piece.trimStart()).not.toMatch(/^[=+\-@]/);
      }),
    );
  });
});
