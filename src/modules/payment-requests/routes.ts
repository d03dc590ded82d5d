import type { PaymentRequestsContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { merchantScopeOf } from '../../http/credentials.js';
import { withExample } from '../../http/openapi-components.js';
import { CREATE_PAYMENT_REQUEST_EXAMPLE, PAYMENT_REQUEST_EXAMPLE } from './examples.js';
import { createOnce } from '../idempotency/index.js';
import { CSV_DESCRIPTION, CsvResponse, sendCsv } from '../../lib/csv.js';
import { cancelPaymentRequest } from './cancel-payment-request.js';
import { createPaymentRequest } from './create-payment-request.js';
import { getPaymentRequest } from './get-payment-request.js';
import { checkoutHeaders } from './checkout-headers.js';
import { getPaymentRequestStatus } from './get-payment-request-status.js';
import { getTimeline } from './get-timeline.js';
import { exportPaymentRequests, listPaymentRequestPage } from './list-payment-requests.js';
import { presentListedRequest, presentPaymentRequest } from './present.js';
import { findPaymentRequest } from './repository.js';
import {
  CreatePaymentRequestBody,
  ExportPaymentRequestsQuery,
  ListPaymentRequestsQuery,
  PaymentRequestIdParams,
  PaymentRequestPage,
  PaymentRequestRecord,
  PaymentRequestStatusRecord,
  Timeline,
} from './schemas.js';

const tags = ['Payment requests'];

export function paymentRequestRoutes(app: App, ctx: PaymentRequestsContext): void {
  const present = (row: Parameters<typeof presentPaymentRequest>[0]) =>
    presentPaymentRequest(row, ctx.clock.now(), ctx.config.checkoutUrl);

  app.post(
    '/payment-requests',
    {
      schema: {
        operationId: 'createPaymentRequest',
        summary: 'Create a payment request',
        tags,
        body: withExample(CreatePaymentRequestBody, CREATE_PAYMENT_REQUEST_EXAMPLE),
        response: { 200: withExample(PaymentRequestRecord, PAYMENT_REQUEST_EXAMPLE) },
      },
      config: { auth: 'api_key' },
    },
    async (request) => {
      const scope = merchantScopeOf(request);
      const row = await createOnce(ctx, request, {
        create: (trx) => createPaymentRequest(trx, { ...request.body, scope }),
        idOf: (created) => created.id,
        find: (id) => findPaymentRequest(ctx.db, scope, id),
      });
      return present(row);
    },
  );

  app.get(
    '/payment-requests',
    {
      schema: {
        operationId: 'listPaymentRequests',
        summary: 'List payment requests, newest first',
        tags,
        querystring: ListPaymentRequestsQuery,
        response: { 200: PaymentRequestPage },
      },
      config: { auth: 'api_key' },
    },
    async (request) => {
      const page = await listPaymentRequestPage(ctx, { scope: merchantScopeOf(request), query: request.query });
      return {
        ...page,
        data: page.data.map((row) => presentListedRequest(row, ctx.clock.now(), ctx.config.checkoutUrl)),
      };
    },
  );

  app.get(
    '/payment-requests/export/csv',
    {
      schema: {
        operationId: 'exportPaymentRequests',
        summary: 'Export the filtered list of payment requests as CSV, newest first',
        description: CSV_DESCRIPTION,
        tags,
        querystring: ExportPaymentRequestsQuery,
        response: { 200: CsvResponse },
      },
      config: { auth: 'api_key' },
    },
    async (request, reply) => {
      const csv = exportPaymentRequests(ctx, { scope: merchantScopeOf(request), query: request.query });
      return sendCsv(reply, 'payment-requests', ctx.clock.now(), csv);
    },
  );

  app.get(
    '/payment-requests/:id',
    {
      schema: {
        operationId: 'getPaymentRequest',
        summary: 'Get a payment request (also with the checkout session token bound to it)',
        tags,
        params: PaymentRequestIdParams,
        response: { 200: PaymentRequestRecord },
      },
      config: { auth: 'api_key', checkoutToken: { boundParam: 'id' } },
    },
    async (request, reply) => {
      const scope = merchantScopeOf(request);
      const row = await getPaymentRequest(ctx, { scope, id: request.params.id });
      if (request.actor?.kind !== 'checkout') return present(row);
      // What the hosted checkout needs besides the record goes in headers, so the record keeps its shape for both callers.
      for (const [name, value] of Object.entries(await checkoutHeaders(ctx, { scope, id: row.id })))
        reply.header(name, value);
      // Where the merchant's notifications go is none of the payer's business.
      const { notifyUrl: _merchantOnly, ...record } = present(row);
      return record;
    },
  );

  app.get(
    '/payment-requests/:id/timeline',
    {
      schema: {
        operationId: 'getPaymentRequestTimeline',
        summary: 'Timeline of a payment request: state changes, provider callbacks, notification attempts',
        tags,
        params: PaymentRequestIdParams,
        response: { 200: Timeline },
      },
      config: { auth: 'api_key' },
    },
    async (request) => getTimeline(ctx, { scope: merchantScopeOf(request), id: request.params.id }),
  );

  app.get(
    '/payment-requests/status/:id',
    {
      schema: {
        operationId: 'getPaymentRequestStatus',
        summary: 'Compact status of a payment request and its last payment attempt',
        tags,
        params: PaymentRequestIdParams,
        response: { 200: PaymentRequestStatusRecord },
      },
      config: { auth: 'api_key' },
    },
    async (request) => {
      return getPaymentRequestStatus(ctx, { scope: merchantScopeOf(request), id: request.params.id });
    },
  );

  app.post(
    '/payment-requests/:id/cancel',
    {
      schema: {
        operationId: 'cancelPaymentRequest',
        summary: 'Cancel an open payment request',
        tags,
        params: PaymentRequestIdParams,
        response: { 200: PaymentRequestRecord },
      },
      config: { auth: 'api_key' },
    },
    async (request) => {
      return present(await cancelPaymentRequest(ctx, { scope: merchantScopeOf(request), id: request.params.id }));
    },
  );
}
