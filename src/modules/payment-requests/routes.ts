import type { App, AppContext } from '../../app.js';
import { notFound } from '../../errors.js';
import { requireMerchant } from '../../http/credentials.js';
import { cancelPaymentRequest } from './cancel-payment-request.js';
import { createPaymentRequest } from './create-payment-request.js';
import { expiryJob } from './expire-payment-request.js';
import { getPaymentRequestStatus } from './get-payment-request-status.js';
import { listPaymentRequestPage } from './list-payment-requests.js';
import { presentPaymentRequest } from './present.js';
import { findPaymentRequest, scopeOf } from './repository.js';
import {
  CreatePaymentRequestBody,
  ListPaymentRequestsQuery,
  PaymentRequestIdParams,
  PaymentRequestPage,
  PaymentRequestRecord,
  PaymentRequestStatusRecord,
} from './schemas.js';

const tags = ['Payment requests'];

export function paymentRequestRoutes(app: App, ctx: AppContext): void {
  ctx.jobs.register(expiryJob({ db: ctx.db, clock: ctx.clock, checkoutUrl: ctx.config.checkoutUrl }));
  const present = (row: Parameters<typeof presentPaymentRequest>[0]) => presentPaymentRequest(row, ctx.clock.now(), ctx.config.checkoutUrl);

  app.post(
    '/payment-requests',
    {
      schema: { summary: 'Create a payment request', tags, body: CreatePaymentRequestBody, response: { 200: PaymentRequestRecord } },
      config: { auth: 'api_key' },
    },
    async (request) => {
      const scope = scopeOf(requireMerchant(request));
      const row = await ctx.db.transaction().execute((trx) => createPaymentRequest(trx, ctx.clock, scope, request.body));
      return present(row);
    },
  );

  app.get(
    '/payment-requests',
    {
      schema: {
        summary: 'List payment requests, newest first',
        tags,
        querystring: ListPaymentRequestsQuery,
        response: { 200: PaymentRequestPage },
      },
      config: { auth: 'api_key' },
    },
    async (request) => {
      const scope = scopeOf(requireMerchant(request));
      const page = await listPaymentRequestPage(ctx.db, ctx.clock.now(), scope, request.query);
      return { ...page, data: page.data.map(present) };
    },
  );

  app.get(
    '/payment-requests/:id',
    {
      schema: {
        summary: 'Get a payment request (also with the checkout session token bound to it)',
        tags,
        params: PaymentRequestIdParams,
        response: { 200: PaymentRequestRecord },
      },
      config: { auth: 'api_key', checkout: { param: 'id' } },
    },
    async (request) => {
      const scope = scopeOf(requireMerchant(request));
      const row = await findPaymentRequest(ctx.db, scope, request.params.id);
      if (!row) throw notFound(`payment request ${request.params.id}`);
      return present(row);
    },
  );

  app.get(
    '/payment-requests/status/:id',
    {
      schema: {
        summary: 'Compact status of a payment request and its last payment attempt',
        tags,
        params: PaymentRequestIdParams,
        response: { 200: PaymentRequestStatusRecord },
      },
      config: { auth: 'api_key' },
    },
    async (request) => {
      const scope = scopeOf(requireMerchant(request));
      return getPaymentRequestStatus(ctx.db, ctx.clock.now(), scope, request.params.id);
    },
  );

  app.post(
    '/payment-requests/:id/cancel',
    {
      schema: { summary: 'Cancel an open payment request', tags, params: PaymentRequestIdParams, response: { 200: PaymentRequestRecord } },
      config: { auth: 'api_key' },
    },
    async (request) => {
      const scope = scopeOf(requireMerchant(request));
      return present(await cancelPaymentRequest(ctx.db, ctx.clock, scope, request.params.id));
    },
  );
}
