import { Type } from '@sinclair/typebox';
import type { SandboxApp, SandboxContext } from './context.js';
import { followUpRoutes } from './followups.js';
import { processorHooks } from './http.js';
import { settle, type Payment } from './ledger.js';
import { walletPlan } from './outcomes.js';
import { openPayment } from './processors.js';
import { Amount, Currency, Reference, ThreeDS } from './schemas.js';

const WalletPayment = Type.Object({
  reference: Reference,
  amount: Amount,
  currency: Currency,
  token: Type.String({ minLength: 1, maxLength: 4096 }),
  walletType: Type.Optional(Type.String({ maxLength: 50 })),
  /** false = authorize only. Default true. */
  capture: Type.Optional(Type.Boolean()),
  /** Only `returnUrl` matters here: where the ACS sends the payer after a `wallet_3ds` challenge. */
  threeDS: Type.Optional(ThreeDS),
});

/** Digital-wallet processor: synchronous, outcome from the wallet token table. */
export function walletRoutes(scope: SandboxApp, ctx: SandboxContext): void {
  const ledger = ctx.ledgers.wallet;
  processorHooks(scope, ctx);

  scope.post('/payments', { schema: { body: WalletPayment } }, async (request, reply) => {
    const body = request.body;
    const answer = ledger.answers.once(body.reference, () => {
      const plan = walletPlan(body.token);
      const { reference, amount, currency, capture = true, walletType = 'wallet', threeDS } = body;
      const payment = openPayment(ctx, ledger, { reference, amount, currency, capture }, plan, {
        returnUrl: threeDS?.returnUrl,
        instrument: `${walletType} wallet`,
      });
      if (plan.kind === 'final') settle(payment, plan.outcome);
      return { statusCode: 200, body: walletView(payment) };
    });
    return reply.code(answer.statusCode).send(answer.body);
  });

  followUpRoutes(scope, ledger);
}

function walletView(payment: Payment) {
  return {
    id: payment.id,
    status: payment.status === 'captured' ? 'approved' : payment.status,
    ...(payment.declineCode ? { issuerResponse: payment.declineCode, declineReason: payment.declineReason } : {}),
    ...(payment.authorizationCode ? { authorizationCode: payment.authorizationCode } : {}),
    captured: payment.status === 'captured',
    ...(payment.challengeUrl ? { challengeUrl: payment.challengeUrl } : {}),
  };
}
