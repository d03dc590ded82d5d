import { Type } from '@sinclair/typebox';
import { randomBytes } from 'node:crypto';
import type { SandboxApp, SandboxContext } from './context.js';
import { paymentEvent, settle } from './ledger.js';
import { CHALLENGE_DENIED, ECI_AUTHENTICATED, ECI_NOT_AUTHENTICATED, type FinalOutcome } from './outcomes.js';
import { escapeHtml } from './util.js';

/** A 3-D Secure challenge waiting for the payer on the ACS page. */
const AcsParams = Type.Object({ acsId: Type.String() });
const AcsDecision = Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]) });

/** The issuer's Access Control Server: a page with "Approve" and "Deny". */
export function acsRoutes(app: SandboxApp, ctx: SandboxContext): void {
  app.get('/acs/:acsId', { schema: { params: AcsParams } }, async (request, reply) => {
    const challenge = ctx.challenges.get(request.params.acsId);
    reply.type('text/html; charset=utf-8');
    if (!challenge)
      return reply.code(404).send(page('Unknown challenge', '<p>This authentication request does not exist.</p>'));
    if (challenge.decision)
      return page('Authentication complete', '<p>This authentication has already been completed.</p>');
    const { payment } = challenge;
    const amount = `${escapeHtml(payment.currency)} ${(payment.amount / 100).toFixed(2)} (${payment.amount} minor units)`;
    return page(
      '3-D Secure authentication',
      `<p>Confirm the payment of <strong>${amount}</strong> with your ${escapeHtml(challenge.instrument)}.</p>
<p>This is the sandbox issuer: choose the outcome.</p>
<form method="post"><input type="hidden" name="decision" value="approve"><button type="submit">Approve</button></form>
<form method="post"><input type="hidden" name="decision" value="deny"><button type="submit">Deny</button></form>`,
    );
  });

  /**
   * The payer's decision: settles the payment, tells the gateway on `/callbacks/3ds`, waits for
   * its answer (first attempt), then sends the browser back to `returnUrl` with 303.
   */
  app.post('/acs/:acsId', { schema: { params: AcsParams, body: AcsDecision } }, async (request, reply) => {
    const challenge = ctx.challenges.get(request.params.acsId);
    if (!challenge) return reply.code(404).type('text/html; charset=utf-8').send(page('Unknown challenge', ''));
    if (!challenge.decision) {
      challenge.decision = request.body.decision;
      const approved = challenge.decision === 'approve';
      settle(challenge.payment, approved ? afterAuthentication(challenge.outcome) : CHALLENGE_DENIED);
      const event = {
        ...paymentEvent(challenge.payment),
        threeDsResult: approved ? ('Y' as const) : ('N' as const),
        eci: approved ? ECI_AUTHENTICATED : ECI_NOT_AUTHENTICATED,
        // CAVV-like value: only an authenticated payer gets one.
        authenticationValue: approved ? randomBytes(20).toString('base64') : '',
      };
      await ctx.callbacks.send('/callbacks/3ds', Buffer.from(JSON.stringify(event)));
    }
    if (challenge.returnUrl) return reply.code(303).header('location', challenge.returnUrl).send();
    return reply
      .type('text/html; charset=utf-8')
      .send(page('Authentication complete', '<p>You may close this window.</p>'));
  });
}

/** An authenticated payer's approval carries the authenticated ECI; the card table may still decline. */
function afterAuthentication(outcome: FinalOutcome): FinalOutcome {
  return outcome.result === 'approved' ? { result: 'approved', eci: ECI_AUTHENTICATED } : outcome;
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}form{display:inline-block;margin-right:.5rem}button{font-size:1rem;padding:.5rem 1.25rem}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}
