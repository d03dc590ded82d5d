import type { Static } from '@sinclair/typebox';
import type { CreateCustomerBody, Customer } from './schemas.js';

/** The examples /openapi.json shows for creating a customer record. */

export const CREATE_CUSTOMER_EXAMPLE: Static<typeof CreateCustomerBody> = {
  name: 'Asha Rao',
  email: 'asha@example.com',
  phone: '919876543210',
  country: 'IN',
};

export const CUSTOMER_EXAMPLE: Static<typeof Customer> = {
  id: 5,
  name: 'Asha Rao',
  email: 'asha@example.com',
  ownerId: 1,
  userId: 1,
  ownerName: 'Acme Shop',
  address: null,
  phone: '919876543210',
  memberId: null,
  country: 'IN',
  hasPaymentRequests: false,
  totalDeposits: 0,
  depositsByCurrency: {},
  createDate: '2026-03-01T12:00:00.000Z',
};
