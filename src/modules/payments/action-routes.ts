import type { App } from '../../http/fastify-app.js';
import type { PaymentsContext } from './context.js';
import { auditEntryOf } from '../audit/index.js';
import { merchantScopeOf as scopeOf } from '../../http/credentials.js';
import { recoveredObjectId } from '../../http/idempotency.js';
import { withExample } from '../../http/openapi-components.js';
import { REFUND_BODY_EXAMPLE, REFUND_EXAMPLE } from './examples.js';
import { fromMinor } from '../../lib/money.js';
import { cancelPayment, capturePayment } from './capture.js';
import { refundPayment } from './refund.js';
import { findCard } from './repository.js';
import { MOVES_MONEY, TAGS } from './route-config.js';
import { sandboxControls } from './sandbox-controls.js';
import { Payment, PaymentIdParams, Refund, RefundBody } from './schemas.js';
import { paymentView } from './view.js';

/** What a merchant does to a payment afterwards: capture, void, refund. */
export function actionRoutes(app: App, ctx: PaymentsContext): void {
  const followUp = (path: string, operationId: string, summary: string, action: typeof capturePayment) =>
    app.post(
      path,
      {
        schema: { operationId, summary, tags: TAGS, params: PaymentIdParams, response: { 200: Payment } },
        config: MOVES_MONEY,
      },
      async (request) => {
        const payment = await action(ctx, { scope: scopeOf(request), paymentId: request.params.paymentId });
        return paymentView(payment, await findCard(ctx.db, payment.card_id));
      },
    );
  followUp(
    '/payments/:paymentId/capture',
    'capturePayment',
    'Capture an authorized payment now (instead of at its scheduled time)',
    capturePayment,
  );
  followUp('/payments/:paymentId/cancel', 'cancelPayment', 'Void an authorized payment', cancelPayment);

  app.post(
    '/payments/:paymentId/refunds',
    {
      schema: {
        operationId: 'refundPayment',
        summary: 'Refund a captured payment, fully or partly',
        tags: TAGS,
        params: PaymentIdParams,
        body: withExample(RefundBody, REFUND_BODY_EXAMPLE),
        response: { 200: withExample(Refund, REFUND_EXAMPLE) },
      },
      config: MOVES_MONEY,
    },
    async (request) => {
      const claim = request.idempotencyClaim;
      const refund = await refundPayment(ctx, {
        ...request.body,
        scope: scopeOf(request),
        paymentId: request.params.paymentId,
        testHeaders: sandboxControls(request),
        recoveryPoint: claim && { ...claim, resumeRefundId: recoveredObjectId(claim) },
        audit: auditEntryOf(request, 'payment.refunded'),
      });
      return {
        refundId: refund.id,
        paymentId: refund.payment_id,
        amount: fromMinor(refund.amount, refund.currency),
        currency: refund.currency,
        status: refund.status,
        reason: refund.reason,
        createDate: refund.created_at.toISOString(),
      };
    },
  );
}
