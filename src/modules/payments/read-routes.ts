import type { App } from '../../http/fastify-app.js';
import type { PaymentsContext } from './context.js';
import { AppError } from '../../errors.js';
import { merchantScopeOf as scopeOf } from '../../http/credentials.js';
import { CSV_DESCRIPTION, CsvResponse, sendCsv } from '../../lib/csv.js';
import { exportPayments, listPaymentPage } from './list-payments.js';
import { findCard, findPayment } from './repository.js';
import { PAYMENT_ROUTE, TAGS } from './route-config.js';
import { Payment, PaymentExportQuery, PaymentIdParams, PaymentList, PaymentListQuery } from './schemas.js';
import { paymentView } from './view.js';

/** Reading payments: one, the filtered list, and the same list as CSV. */
export function readRoutes(app: App, ctx: PaymentsContext): void {
  app.get(
    '/payments/:paymentId',
    {
      schema: {
        operationId: 'getPayment',
        summary: 'Read a payment',
        tags: TAGS,
        params: PaymentIdParams,
        response: { 200: Payment },
      },
      config: PAYMENT_ROUTE,
    },
    async (request) => {
      const scope = scopeOf(request);
      const payment = await findPayment(ctx.db, scope, request.params.paymentId);
      if (!payment) throw new AppError('NOT_FOUND', 'payment not found');
      return paymentView(payment, await findCard(ctx.db, payment.card_id));
    },
  );

  app.get(
    '/payments',
    {
      schema: {
        operationId: 'listPayments',
        summary: 'List payments (every attempt), newest first; filter by payment request, status, date, amount…',
        tags: TAGS,
        querystring: PaymentListQuery,
        response: { 200: PaymentList },
      },
      config: PAYMENT_ROUTE,
    },
    async (request) => listPaymentPage(ctx, { scope: scopeOf(request), query: request.query }),
  );

  app.get(
    '/payments/export/csv',
    {
      schema: {
        operationId: 'exportPayments',
        summary: 'Export the filtered list of payments as CSV, newest first',
        description: CSV_DESCRIPTION,
        tags: TAGS,
        querystring: PaymentExportQuery,
        response: { 200: CsvResponse },
      },
      config: PAYMENT_ROUTE,
    },
    async (request, reply) => {
      const csv = exportPayments(ctx, { scope: scopeOf(request), query: request.query });
      return sendCsv(reply, 'payments', ctx.clock.now(), csv);
    },
  );
}
