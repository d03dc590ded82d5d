import type { PartialPayer } from '../../lib/payer.js';
import type { findCustomerContact } from './repository.js';

type CustomerContact = NonNullable<Awaited<ReturnType<typeof findCustomerContact>>>;

/**
 * The payer defaults a request keeps (docs/decisions.md "Payer defaults of a payment request"): the
 * fields the body's payer gives, and for the others what its customer's record holds at creation. A
 * customer's field left empty gives nothing, so the checkout asks it.
 */
export function payerDefaults(given: PartialPayer | undefined, customer: CustomerContact | undefined): PartialPayer {
  const fromCustomer: Record<string, string | null> = customer
    ? {
        name: customer.name,
        email: customer.email,
        phoneNumber: customer.phone,
        address: customer.address,
        country: customer.country,
      }
    : {};
  const known = Object.entries(fromCustomer).filter((entry): entry is [string, string] => !!entry[1]?.trim());
  return { ...Object.fromEntries(known), ...given };
}
