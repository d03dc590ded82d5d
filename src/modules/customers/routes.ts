import type { FastifyRequest } from 'fastify';
import { type DbContext, inTransaction } from '../../storage/db-context.js';
import type { App } from '../../http/fastify-app.js';
import { AppError } from '../../errors.js';
import { requireMerchant } from '../../http/credentials.js';
import { withExample } from '../../http/openapi-components.js';
import { CREATE_CUSTOMER_EXAMPLE, CUSTOMER_EXAMPLE } from './examples.js';
import { createOnce } from '../idempotency/index.js';
import { createCustomer } from './create-customer.js';
import { getCustomer, listCustomers } from './list-customers.js';
import { findCustomer, type CustomerScope } from './repository.js';
import {
  CreateCustomerBody,
  Customer,
  CustomerList,
  CustomerParams,
  CustomerSummary,
  ListCustomersQuery,
  UpdateCustomerBody,
} from './schemas.js';
import { summarizeCustomer } from './summarize-customer.js';
import { updateCustomer } from './update-customer.js';

const tags = ['Customers'];
/** Customers answer errors as RFC 9457 problem records (decisions.md "Error bodies"). */
const CUSTOMER_ROUTE = { auth: 'api_key', errorShape: 'problem' } as const;

/** Test keys see only test customers, live keys only live ones; another merchant's are simply not there. */
function callerScope(request: FastifyRequest): CustomerScope & { userId: number } {
  const actor = requireMerchant(request);
  // Customer routes accept no checkout token (the credential check refuses it); this narrows the type.
  if (actor.kind === 'checkout') throw new AppError('FORBIDDEN', 'Customer records need an API key');
  return { merchantId: actor.merchantId, livemode: actor.mode === 'live', userId: actor.userId };
}

export function customerRoutes(app: App, ctx: DbContext): void {
  app.post(
    '/customers',
    {
      schema: {
        operationId: 'createCustomer',
        summary: 'Create a customer record',
        tags,
        body: withExample(CreateCustomerBody, CREATE_CUSTOMER_EXAMPLE),
        response: { 200: withExample(Customer, CUSTOMER_EXAMPLE) },
      },
      config: CUSTOMER_ROUTE,
    },
    async (request) => {
      const scope = callerScope(request);
      return createOnce(ctx, request, {
        create: (trx) => createCustomer(trx, { ...request.body, scope }),
        idOf: (created) => created.id,
        find: (id) => findCustomer(ctx.db, scope, id),
      });
    },
  );

  app.get(
    '/customers',
    {
      schema: {
        operationId: 'listCustomers',
        summary: 'List customer records, newest first',
        tags,
        querystring: ListCustomersQuery,
        response: { 200: CustomerList },
      },
      config: CUSTOMER_ROUTE,
    },
    async (request) => listCustomers(ctx, { scope: callerScope(request), query: request.query }),
  );

  app.get(
    '/customers/:id',
    {
      schema: {
        operationId: 'getCustomer',
        summary: 'Get a customer record',
        tags,
        params: CustomerParams,
        response: { 200: Customer },
      },
      config: CUSTOMER_ROUTE,
    },
    async (request) => getCustomer(ctx, { scope: callerScope(request), id: request.params.id }),
  );

  app.get(
    '/customers/:id/summary',
    {
      schema: {
        operationId: 'getCustomerSummary',
        summary: 'A customer with their payment requests counted and summed per currency',
        tags,
        params: CustomerParams,
        response: { 200: CustomerSummary },
      },
      config: CUSTOMER_ROUTE,
    },
    async (request) => summarizeCustomer(ctx, { scope: callerScope(request), id: request.params.id }),
  );

  app.patch(
    '/customers/:id',
    {
      schema: {
        operationId: 'updateCustomer',
        summary: 'Change a customer record',
        tags,
        params: CustomerParams,
        body: UpdateCustomerBody,
        response: { 200: Customer },
      },
      config: CUSTOMER_ROUTE,
    },
    async (request) => {
      const scope = callerScope(request);
      return inTransaction(ctx, (trx) => updateCustomer(trx, { scope, id: request.params.id, changes: request.body }));
    },
  );
}
