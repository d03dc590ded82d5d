import { Type } from '@sinclair/typebox';
import type { SandboxApp } from './context.js';
import { capture, paymentView, refund, voidPayment, type Ledger } from './ledger.js';
import { Amount, IdParams, Reference, ReferenceQuery } from './schemas.js';
import { SandboxError } from './util.js';

const CaptureBody = Type.Object({ amount: Type.Optional(Amount) });
const RefundBody = Type.Object({ amount: Amount, reference: Reference });

/** Capture, void, refunds and status: synchronous on every processor that keeps a ledger. */
export function followUpRoutes(scope: SandboxApp, ledger: Ledger): void {
  scope.post('/payments/:id/capture', { schema: { params: IdParams, body: CaptureBody } }, async (request) => {
    const payment = ledger.get(request.params.id);
    capture(payment, request.body.amount);
    return { id: payment.id, status: 'captured', amountCaptured: payment.amountCaptured };
  });

  scope.post('/payments/:id/void', { schema: { params: IdParams } }, async (request) => {
    const payment = ledger.get(request.params.id);
    voidPayment(payment);
    return { id: payment.id, status: 'voided' };
  });

  scope.post('/payments/:id/refunds', { schema: { params: IdParams, body: RefundBody } }, async (request) => {
    const created = refund(ledger.get(request.params.id), request.body.amount, request.body.reference);
    return { id: created.id, status: created.status, amount: created.amount, reference: created.reference };
  });

  scope.get('/payments/:id', { schema: { params: IdParams } }, async (request) =>
    paymentView(ledger.get(request.params.id)),
  );

  scope.get('/payments', { schema: { querystring: ReferenceQuery } }, async (request) => {
    const payment = ledger.findByReference(request.query.reference);
    if (!payment) throw new SandboxError(404, 'not_found', `no payment with reference ${request.query.reference}`);
    return paymentView(payment);
  });
}
