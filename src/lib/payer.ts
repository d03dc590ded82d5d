import { Type, type Static, type TOptional, type TProperties } from '@sinclair/typebox';

/**
 * The spec's payer fields ("Payer and payment submission fields") with their bounds: the payment bodies
 * require them, and a payment request may carry them as defaults for its hosted checkout.
 */
export const PayerFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  email: Type.String({ format: 'email', maxLength: 100 }),
  phoneNumber: Type.String({
    minLength: 10,
    maxLength: 14,
    pattern: '^\\d+$',
    description: 'Digits only, with country code',
  }),
  address: Type.String({ minLength: 1, maxLength: 100 }),
  city: Type.String({ minLength: 1, maxLength: 50 }),
  state: Type.String({ minLength: 1 }),
  postalCode: Type.String({ minLength: 1, maxLength: 10 }),
  country: Type.String({ minLength: 2, maxLength: 2, description: 'ISO 3166-1 alpha-2' }),
};

/** The same properties, each optional. */
export const optionalProperties = <P extends TProperties>(properties: P) =>
  Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)])) as {
    [K in keyof P]: TOptional<P[K]>;
  };

/** Any of the payer fields, each with its bounds. */
export const PartialPayer = (description: string) => Type.Object(optionalProperties(PayerFields), { description });
export type PartialPayer = Static<ReturnType<typeof PartialPayer>>;
