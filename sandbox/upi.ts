import { Type } from '@sinclair/typebox';
import type { SandboxApp, SandboxContext } from './context.js';
import { afterAnswer, callbackMode, processorHooks } from './http.js';
import { upiOutcome, UPI_ID_PATTERN, type UpiOutcome } from './outcomes.js';
import type { CallbackMode } from './callbacks.js';
import type { Collect } from './upi-collects.js';
import { Amount, Currency, IdParams, Reference, ReferenceQuery } from './schemas.js';
import { newId, SandboxError } from './util.js';

const CollectRequest = Type.Object({
  reference: Reference,
  amount: Amount,
  currency: Currency,
  upiId: Type.String({ maxLength: 320 }),
});

const IntentRequest = Type.Object({ reference: Reference, amount: Amount, currency: Currency });

/** The sandbox PSP's own collecting account: the payee of every intent link. */
export const PAYEE = { vpa: 'svcgateway@sandbox', name: 'SVC Sandbox Merchant' };

/**
 * UPI PSP: a collect request is answered `pending`; the payer's answer follows on `/callbacks/svc`.
 * An intent is answered `pending` with its `upi://pay` link and the payer page (sandbox/upi-payer.ts)
 * where the payer approves or declines; the answer follows on the same callback.
 */
export function upiRoutes(scope: SandboxApp, ctx: SandboxContext): void {
  processorHooks(scope, ctx);

  scope.post('/collect', { schema: { body: CollectRequest } }, async (request, reply) => {
    const { reference, amount, currency, upiId } = request.body;
    const answer = ctx.collects.answers.once(reference, () => {
      if (!UPI_ID_PATTERN.test(upiId))
        throw new SandboxError(400, 'invalid_upi_id', 'UPI id must look like username@bankcode', { field: 'upiId' });
      const collect = ctx.collects.open({ flow: 'collect', reference, amount, currency });
      const outcome = upiOutcome(upiId);
      const mode = callbackMode(request);
      // The payer answers once the PSP has answered the gateway; timeout@upi never does.
      afterAnswer(reply, () => {
        if (outcome.kind !== 'no_answer') answerUpi(ctx, collect, outcome, mode);
      });
      return { statusCode: 200, body: { id: collect.id, status: 'pending' } };
    });
    return reply.code(answer.statusCode).send(answer.body);
  });

  scope.post('/intent', { schema: { body: IntentRequest } }, async (request, reply) => {
    const { reference, amount, currency } = request.body;
    const answer = ctx.collects.answers.once(reference, () => {
      const collect = ctx.collects.open({
        flow: 'intent',
        reference,
        amount,
        currency,
        callbackMode: callbackMode(request),
      });
      return {
        statusCode: 200,
        body: {
          id: collect.id,
          status: 'pending',
          intentUrl: intentLink(collect),
          payerUrl: ctx.collects.payerPageUrl(collect),
          expiresAt: ctx.collects.expiresAt(collect),
        },
      };
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

/** The payer's answer, collect or intent: kept on the request and called back to the gateway. */
export function answerUpi(
  ctx: SandboxContext,
  collect: Collect,
  outcome: Exclude<UpiOutcome, { kind: 'no_answer' }>,
  mode: CallbackMode,
): void {
  const failure = outcome.kind === 'failed' ? { upiResponse: outcome.upiResponse, declineReason: outcome.reason } : {};
  Object.assign(collect, { status: outcome.kind, ...failure });
  const event = {
    eventId: newId('evt'),
    transactionId: collect.id,
    status: outcome.kind,
    amount: collect.amount,
    currency: collect.currency,
    timestamp: new Date().toISOString(),
    providerData: { reference: collect.reference, ...failure },
  };
  ctx.callbacks.dispatch('/callbacks/svc', event, mode);
}

/** The NPCI deep link: payee address and name, amount in major units, currency, our transaction reference. */
function intentLink(collect: Collect): string {
  const query = {
    pa: PAYEE.vpa,
    pn: PAYEE.name,
    am: majorUnits(collect.amount, collect.currency),
    cu: collect.currency,
    tr: collect.reference,
  };
  return `upi://pay?${Object.entries(query)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&')}`;
}

/** 49900 INR → "499.00" (the currency's own number of decimals). */
export function majorUnits(minor: number, currency: string): string {
  const { maximumFractionDigits } = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions();
  const digits = maximumFractionDigits ?? 2;
  return (minor / 10 ** digits).toFixed(digits);
}

function collectView(collect: Collect | undefined, key: string) {
  if (!collect) throw new SandboxError(404, 'not_found', `no collect request ${key}`);
  return {
    id: collect.id,
    flow: collect.flow,
    reference: collect.reference,
    status: collect.status,
    amount: collect.amount,
    currency: collect.currency,
    ...(collect.upiResponse ? { upiResponse: collect.upiResponse, declineReason: collect.declineReason } : {}),
  };
}
