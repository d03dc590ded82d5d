import { Type } from '@sinclair/typebox';
import type { SandboxApp, SandboxContext } from './context.js';
import { afterAnswer, callbackMode, processorHooks } from './http.js';
import { upiOutcome, UPI_ID_PATTERN } from './outcomes.js';
import type { Collect } from './upi-collects.js';
import { Amount, Currency, IdParams, Reference, ReferenceQuery } from './schemas.js';
import { newId, SandboxError } from './util.js';

const CollectRequest = Type.Object({
  reference: Reference,
  amount: Amount,
  currency: Currency,
  upiId: Type.String({ maxLength: 320 }),
});

/** UPI PSP: a collect request is answered `pending`; the payer's answer follows on `/callbacks/svc`. */
export function upiRoutes(scope: SandboxApp, ctx: SandboxContext): void {
  processorHooks(scope, ctx);

  scope.post('/collect', { schema: { body: CollectRequest } }, async (request, reply) => {
    const { reference, amount, currency, upiId } = request.body;
    const answer = ctx.collects.answers.once(reference, () => {
      if (!UPI_ID_PATTERN.test(upiId))
        throw new SandboxError(400, 'invalid_upi_id', 'UPI id must look like username@bankcode', { field: 'upiId' });
      const collect = ctx.collects.open({ reference, amount, currency });
      const outcome = upiOutcome(upiId);
      const mode = callbackMode(request);
      // The payer answers once the PSP has answered the gateway; timeout@upi never does.
      afterAnswer(reply, () => {
        if (outcome.kind === 'no_answer') return;
        const failure =
          outcome.kind === 'failed' ? { upiResponse: outcome.upiResponse, declineReason: outcome.reason } : {};
        Object.assign(collect, { status: outcome.kind, ...failure });
        const event = {
          eventId: newId('evt'),
          transactionId: collect.id,
          status: outcome.kind,
          amount,
          currency,
          timestamp: new Date().toISOString(),
          providerData: { reference, ...failure },
        };
        ctx.callbacks.dispatch('/callbacks/svc', event, mode);
      });
      return { statusCode: 200, body: { id: collect.id, status: 'pending' } };
    });
    return reply.code(answer.statusCode).send(answer.body);
  });

  scope.get('/collect/:id', { schema: { params: IdParams } }, async (request) =>
    collectView(ctx.collects.get(request.params.id), request.params.id),
  );

  scope.get('/collect', { schema: { querystring: ReferenceQuery } }, async (request) =>
    collectView(ctx.collects.findByReference(request.query.reference), request.query.reference),
  );
}

function collectView(collect: Collect | undefined, key: string) {
  if (!collect) throw new SandboxError(404, 'not_found', `no collect request ${key}`);
  return {
    id: collect.id,
    reference: collect.reference,
    status: collect.status,
    amount: collect.amount,
    currency: collect.currency,
    ...(collect.upiResponse ? { upiResponse: collect.upiResponse, declineReason: collect.declineReason } : {}),
  };
}
