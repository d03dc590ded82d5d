import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { CallbackMode, CallbackPath } from './callbacks.js';
import { expired, last4, luhnValid } from './cards.js';
import type { SandboxApp, SandboxContext } from './context.js';
import { followUpRoutes } from './followups.js';
import type { Answer } from './idempotency.js';
import { afterAnswer, callbackMode, processorHooks } from './http.js';
import { paymentEvent, settle, type Ledger, type NewPayment, type Payment } from './ledger.js';
import { cardPlan, PENDING_SETTLE_MS, type AuthorizationPlan, type FinalOutcome } from './outcomes.js';
import { Amount, Currency, Reference, ThreeDS } from './schemas.js';
import { SandboxError } from './util.js';

const CardAuthorization = Type.Object({
  reference: Reference,
  amount: Amount,
  currency: Currency,
  /** false = authorize only. Default true. */
  capture: Type.Optional(Type.Boolean()),
  card: Type.Object({
    number: Type.String({ minLength: 1, maxLength: 64 }),
    expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
    expYear: Type.Integer({ minimum: 2000, maximum: 2199 }),
    // Absent for stored-card (card-on-file) payments: the CVV is never kept after the first use.
    cvv: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$' })),
    holder: Type.Optional(Type.String({ maxLength: 255 })),
  }),
  threeDS: Type.Optional(ThreeDS),
});
type CardAuthorization = Static<typeof CardAuthorization>;

/**
 * The two card processors share everything but how they answer: acme answers the outcome
 * synchronously (200); globex answers 202 `accepted` and sends the outcome to
 * `/callbacks/svc-gateway`. Both keep the first answer per `reference` and give it back
 * to a repeated request, so a retry never charges twice.
 */
export function cardProcessorRoutes(scope: SandboxApp, ctx: SandboxContext, processor: 'acme' | 'globex'): void {
  const ledger = ctx.ledgers[processor];
  processorHooks(scope, ctx);

  scope.post('/payments', { schema: { body: CardAuthorization } }, async (request, reply) => {
    const answer = ledger.answers.once(request.body.reference, () => {
      const plan = checkedPlan(request.body);
      const { reference, amount, currency, capture = true, card, threeDS } = request.body;
      const payment = openPayment(ctx, ledger, { reference, amount, currency, capture }, plan, {
        returnUrl: threeDS?.returnUrl,
        instrument: `card ending ${last4(card.number)}`,
      });
      const mode = callbackMode(request);
      return processor === 'acme'
        ? answerNow(ctx, reply, payment, plan, mode)
        : answerByCallback(ctx, reply, payment, plan, mode);
    });
    return reply.code(answer.statusCode).send(answer.body);
  });

  followUpRoutes(scope, ledger);
}

/** Defence in depth (the gateway validates first), then the card table. */
function checkedPlan(body: CardAuthorization): AuthorizationPlan {
  if (!luhnValid(body.card.number))
    throw new SandboxError(400, 'invalid_card', 'card number is not valid', { field: 'number' });
  if (expired(body.card.expMonth, body.card.expYear, new Date())) {
    throw new SandboxError(400, 'invalid_card', 'card has expired', { field: 'expiration' });
  }
  const plan = cardPlan(body.card.number, body.threeDS?.force ?? false);
  if (plan.kind === 'processor_error') {
    throw new SandboxError(503, 'processor_error', 'the processor is unavailable, try again', { retryable: true });
  }
  return plan;
}

/** Records the payment; a challenge plan also opens its ACS page. */
export function openPayment(
  ctx: SandboxContext,
  ledger: Ledger,
  input: NewPayment,
  plan: AuthorizationPlan,
  challenge: { returnUrl?: string; instrument: string },
): Payment {
  const payment = ledger.open(input, plan.kind === 'challenge' ? 'challenge' : 'pending');
  if (plan.kind === 'challenge')
    payment.challengeUrl = ctx.challenges.open({ payment, outcome: plan.outcome, ...challenge });
  return payment;
}

/** acme: the outcome in the answer; a `pending` one is settled by a callback to `/callbacks/svc`. */
function answerNow(
  ctx: SandboxContext,
  reply: FastifyReply,
  payment: Payment,
  plan: AuthorizationPlan,
  mode: CallbackMode,
): Answer {
  if (plan.kind === 'final') settle(payment, plan.outcome);
  if (plan.kind === 'pending')
    afterAnswer(reply, () => settleLater(ctx, payment, plan.outcome, '/callbacks/svc', mode));
  return { statusCode: 200, body: authorizationView(payment) };
}

/** globex: 202 now, the outcome (success, failed or requires_action) by callback once the answer is out. */
function answerByCallback(
  ctx: SandboxContext,
  reply: FastifyReply,
  payment: Payment,
  plan: AuthorizationPlan,
  mode: CallbackMode,
): Answer {
  afterAnswer(reply, () => {
    if (plan.kind === 'pending') return settleLater(ctx, payment, plan.outcome, '/callbacks/svc-gateway', mode);
    if (plan.kind === 'final') settle(payment, plan.outcome);
    ctx.callbacks.dispatch('/callbacks/svc-gateway', paymentEvent(payment), mode);
  });
  return { statusCode: 202, body: { id: payment.id, status: 'accepted' } };
}

function settleLater(
  ctx: SandboxContext,
  payment: Payment,
  outcome: FinalOutcome,
  path: CallbackPath,
  mode: CallbackMode,
): void {
  ctx.timers.later(PENDING_SETTLE_MS, () => {
    settle(payment, outcome);
    ctx.callbacks.dispatch(path, paymentEvent(payment), mode);
  });
}

/** The synchronous authorization answer (acme). */
function authorizationView(payment: Payment) {
  return {
    id: payment.id,
    status: payment.status === 'captured' ? 'approved' : payment.status,
    ...(payment.declineCode ? { declineCode: payment.declineCode, declineReason: payment.declineReason } : {}),
    ...(payment.authorizationCode ? { authorizationCode: payment.authorizationCode } : {}),
    captured: payment.status === 'captured',
    ...(payment.eci ? { eci: payment.eci } : {}),
    ...(payment.challengeUrl ? { challengeUrl: payment.challengeUrl } : {}),
  };
}
