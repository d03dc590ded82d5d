import { Type, type Static } from '@sinclair/typebox';
import { Page, PageQuery } from '../../lib/pagination.js';
import { PayerFields } from '../../lib/payer.js';
import { Id, nullable } from '../../lib/schema.js';

/**
 * Customer records (spec "Customer"). Bounds the spec leaves open follow its payer fields:
 * name and e-mail up to 100, phone 10-14 digits with country code, address up to 100;
 * memberId (the merchant's own id for the customer) 1-64 and unique per merchant and mode; country (not in the
 * spec's record, added so a payment request naming the customer fills the checkout's country) as the payer field.
 * Server-owned fields (id, ownerId, userId, ownerName, hasPaymentRequests, totalDeposits,
 * createDate) are not in the bodies, so a client sending them is ignored (X-Ignored-Fields).
 */

const name = Type.String({ minLength: 1, maxLength: 100, description: "The customer's name" });
const email = Type.String({ format: 'email', maxLength: 100, description: "The customer's e-mail address" });
const address = Type.String({ maxLength: 100, description: 'Postal address' });
const phone = Type.String({
  minLength: 10,
  maxLength: 14,
  pattern: '^\\d+$',
  description: 'Digits only, country code included',
});
/** The hosted checkout of a payment request naming the customer takes it. */
const country = PayerFields.country;
const memberId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The merchant's own identifier for the customer; unique per merchant and mode",
});

export const CreateCustomerBody = Type.Object(
  {
    name,
    email,
    address: Type.Optional(nullable(address)),
    phone: Type.Optional(nullable(phone)),
    memberId: Type.Optional(nullable(memberId)),
    country: Type.Optional(nullable(country)),
  },
  { title: 'CreateCustomerBody' },
);
export type CreateCustomerInput = Static<typeof CreateCustomerBody>;

export const UpdateCustomerBody = Type.Object(
  {
    name: Type.Optional(name),
    email: Type.Optional(email),
    address: Type.Optional(nullable(address)),
    phone: Type.Optional(nullable(phone)),
    memberId: Type.Optional(nullable(memberId)),
    country: Type.Optional(nullable(country)),
  },
  {
    title: 'UpdateCustomerBody',
    description: 'Only the fields sent change (at least one); null clears address, phone, memberId or country',
  },
);
export type UpdateCustomerInput = Static<typeof UpdateCustomerBody>;
export const UPDATABLE_FIELDS = Object.keys(UpdateCustomerBody.properties) as (keyof UpdateCustomerInput)[];

export const CustomerParams = Type.Object({
  id: Id('Customer id'),
});

export const ListCustomersQuery = Type.Object({
  ...PageQuery,
  email: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Only customers with exactly this e-mail' }),
  ),
  memberId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Only the customer with this memberId' }),
  ),
});
export type ListCustomersInput = Static<typeof ListCustomersQuery>;

export const Customer = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String({ format: 'email' }),
    ownerId: Type.Integer({ description: 'The merchant that owns the record' }),
    userId: Type.Integer({ description: 'The user whose API key created the record' }),
    ownerName: Type.String({ description: "The merchant's name" }),
    address: nullable(Type.String()),
    phone: nullable(Type.String()),
    memberId: nullable(Type.String()),
    country: nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    hasPaymentRequests: Type.Boolean({ description: 'Whether any payment request names this customer' }),
    totalDeposits: Type.Number({
      description:
        "Net amount paid (paid minus refunded) over all of the customer's payment requests, in major units. " +
        'Amounts in different currencies are added at face value (no exchange rates); depositsByCurrency splits them.',
    }),
    depositsByCurrency: Type.Record(Type.String(), Type.Number(), {
      description: "Net amount paid per currency of the customer's payment requests, in major units of that currency",
    }),
    createDate: Type.String({ format: 'date-time' }),
  },
  { title: 'Customer' },
);
export type Customer = Static<typeof Customer>;

export const CustomerList = Page(Customer);
export type CustomerList = Static<typeof CustomerList>;

const money = (description: string) => Type.Number({ description: `${description}, in major units of the currency` });

export const CustomerSummary = Type.Object({
  customer: Customer,
  totals: Type.Array(
    Type.Object({
      currency: Type.String(),
      count: Type.Integer({ description: 'Payment requests in this currency' }),
      countByStatus: Type.Record(Type.String(), Type.Integer(), {
        description: 'The same requests by status (as the API shows it: an open request past expiresAt is expired)',
      }),
      amount: money('Sum of the requested amounts'),
      amountPaid: money('Sum paid'),
      amountRefunded: money('Sum refunded'),
      net: money('Paid minus refunded'),
    }),
    { description: 'One entry per currency of the customer’s payment requests, by currency code' },
  ),
  paymentRequests: Type.String({
    description: 'The path listing them, newest first and filterable: GET /payment-requests?customerId={id}',
  }),
});
export type CustomerSummary = Static<typeof CustomerSummary>;
