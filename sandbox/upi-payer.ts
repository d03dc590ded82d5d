import { Type } from '@sinclair/typebox';
import type { SandboxApp, SandboxContext } from './context.js';
import { page } from './acs.js';
import { PAYEE, answerUpi, majorUnits } from './upi.js';
import { escapeHtml } from './util.js';

const PayerParams = Type.Object({ intentId: Type.String({ maxLength: 100 }) });
const PayerDecision = Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('decline')]) });

/** A declined intent is told like a declined collect (decisions.md "UPI intent"). */
const DECLINED = { kind: 'failed' as const, upiResponse: 'U69', reason: 'intent declined by the payer' };

/**
 * The stand-in for the payer's UPI app: the page a `upi://pay` intent opens, with "Approve" and
 * "Decline". The answer settles the intent and goes to the gateway on `/callbacks/svc`, as a collect's.
 */
export function upiPayerRoutes(app: SandboxApp, ctx: SandboxContext): void {
  app.get('/upi-payer/:intentId', { schema: { params: PayerParams } }, async (request, reply) => {
    const intent = ctx.collects.get(request.params.intentId);
    reply.type('text/html; charset=utf-8');
    if (intent?.flow !== 'intent')
      return reply.code(404).send(page('Unknown UPI request', '<p>This UPI payment request does not exist.</p>'));
    if (intent.status !== 'pending') return page('UPI payment', `<p>${escapeHtml(closedText(intent.status))}</p>`);
    const amount = `${escapeHtml(intent.currency)} ${escapeHtml(majorUnits(intent.amount, intent.currency))}`;
    return page(
      'UPI payment',
      `<p>Pay <strong>${amount}</strong> to <strong>${escapeHtml(PAYEE.name)}</strong> (${escapeHtml(PAYEE.vpa)}).</p>
<p>This is the sandbox payer's UPI app: choose the outcome.</p>
<form method="post"><input type="hidden" name="decision" value="approve"><button type="submit">Approve</button></form>
<form method="post"><input type="hidden" name="decision" value="decline"><button type="submit">Decline</button></form>`,
    );
  });

  app.post('/upi-payer/:intentId', { schema: { params: PayerParams, body: PayerDecision } }, async (request, reply) => {
    const intent = ctx.collects.get(request.params.intentId);
    reply.type('text/html; charset=utf-8');
    if (intent?.flow !== 'intent') return reply.code(404).send(page('Unknown UPI request', ''));
    if (intent.status === 'pending') {
      const approved = request.body.decision === 'approve';
      answerUpi(ctx, intent, approved ? { kind: 'success' } : DECLINED, intent.callbackMode ?? { kind: 'normal' });
    }
    return page('UPI payment', `<p>${escapeHtml(closedText(intent.status))} You may close this window.</p>`);
  });
}

function closedText(status: string): string {
  if (status === 'success') return 'Payment approved.';
  if (status === 'failed') return 'Payment declined.';
  return 'This UPI payment request has expired.';
}
