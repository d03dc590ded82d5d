import { Type } from '@sinclair/typebox';
import type { PaymentsContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { escapeHtml } from '../../lib/html.js';
import { returnFromChallenge, type ChallengeLanding } from './challenge-return.js';
import { PaymentIdParams } from './schemas.js';

/** The gateway's signature, and what a real processor appends to the return URL (its own names). */
const ReturnQuery = Type.Object({
  signature: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  payment_intent: Type.Optional(Type.String({ maxLength: 255 })),
  payment_intent_client_secret: Type.Optional(Type.String({ maxLength: 255 })),
  redirect_status: Type.Optional(Type.String({ maxLength: 64 })),
  redirectResult: Type.Optional(Type.String({ maxLength: 20_000 })),
});

/** The payer's browser, back from the 3-D Secure challenge page (challenge-return.ts). */
export function challengeReturnRoutes(app: App, ctx: PaymentsContext): void {
  app.get(
    '/payments/:paymentId/return',
    {
      schema: {
        // A browser landing reached only through the signed link the ACS was given, not an API call.
        hide: true,
        summary: "Where the ACS sends the payer's browser after a 3-D Secure challenge",
        description:
          'Redirects (303) to the successUrl or failureUrl of the payment with paymentRequestId, paymentId and status in the query; shows a small result page when none was given or while the outcome is still being settled. The link is signed: the gateway hands it to the ACS.',
        tags: ['Payments'],
        params: PaymentIdParams,
        querystring: ReturnQuery,
        response: {
          200: Type.String({ description: 'Result page (text/html)' }),
          303: Type.String({ description: 'To successUrl or failureUrl (text/html: a link there)' }),
        },
      },
      // A payment route: its errors are problem records like every other's under /payments.
      config: { auth: 'none', errorShape: 'problem' },
    },
    async (request, reply) => {
      const { signature, ...returned } = request.query;
      const landing = await returnFromChallenge(ctx, { paymentId: request.params.paymentId, signature, returned });
      if (landing.kind === 'redirect') {
        // The location is an http(s) URL as URL serializes it (challenge-return.ts); on the page it is escaped all the same.
        const href = escapeHtml(landing.location);
        return reply
          .code(303)
          .header('location', landing.location)
          .type('text/html; charset=utf-8')
          .send(`<!doctype html><p><a href="${href}">Continue</a></p>`);
      }
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(resultPage(landing));
    },
  );
}

const HEADINGS: Record<string, string> = {
  succeeded: 'Payment complete',
  authorized: 'Payment authorized',
  failed: 'Payment failed',
  canceled: 'Payment canceled',
};

/** The gateway's own landing page: only numbers and fixed words reach it, so nothing needs escaping. */
function resultPage(landing: Extract<ChallengeLanding, { kind: 'page' }>): string {
  const heading = HEADINGS[landing.status] ?? 'Confirming your payment…';
  // Still settling: look again shortly (the ACS reports the result before it sends the payer back).
  const refresh = HEADINGS[landing.status] ? '' : '<meta http-equiv="refresh" content="2">';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${heading}</title></head>
<body><h1>${heading}</h1>
<p>Payment ${landing.paymentId} of payment request ${landing.paymentRequestId}: <strong>${landing.status}</strong>.</p>
<p>You may close this window.</p>
</body></html>`;
}
