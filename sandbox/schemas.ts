import { Type } from '@sinclair/typebox';

/** Shared request pieces of the processor APIs (amounts in integer minor units). */
export const Reference = Type.String({ minLength: 1, maxLength: 255 });
export const Amount = Type.Integer({ minimum: 1, maximum: 99_999_999_999 });
export const Currency = Type.String({ pattern: '^[A-Z]{3}$' });
export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
export const ReferenceQuery = Type.Object({ reference: Reference });
/** Where the ACS sends the payer's browser after a challenge. */
export const ThreeDS = Type.Object({
  force: Type.Optional(Type.Boolean()),
  returnUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  /** The payer's browser (EMV 3DS device data); the sandbox ACS accepts it and decides by card only. */
  browserInfo: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
