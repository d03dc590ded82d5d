import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../context.js';

const AcsParams = Type.Object({ acsId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' }) });
const AcsDecision = Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]) });
const PayerParams = Type.Object({ intentId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' }) });
const PayerDecision = Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('decline')]) });

/**
 * The built-in sandbox's browser pages, served under the gateway's own address: the 3-D Secure
 * challenge page (`/acs/{id}`) and the UPI intent's payer page (`/upi-payer/{id}`, standing for the
 * payer's UPI app). The sandbox listens on a random loopback port no payer's browser can reach, so the
 * gateway relays each page's GET and its form's POST (decisions.md "3-D Secure return flow", "UPI
 * intent"). Only registered when the gateway runs the built-in sandbox; an external one has its own
 * public address.
 */
export async function sandboxPages(app: App, sandboxUrl: string): Promise<void> {
  await app.register(async (plugin) => {
    const scope = plugin as App;
    // The ACS page posts a plain HTML form.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    const relay = async (method: 'GET' | 'POST', path: string, body: string | undefined, reply: FastifyReply) => {
      const answer = await fetch(`${sandboxUrl}${path}`, {
        method,
        body,
        headers: body ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
        redirect: 'manual',
      });
      const location = answer.headers.get('location');
      if (location) reply.header('location', location);
      return reply
        .code(answer.status)
        .type(answer.headers.get('content-type') ?? 'text/html; charset=utf-8')
        .send(await answer.text());
    };
    const config = { auth: 'none' as const };
    const acsPath = (acsId: string) => `/acs/${encodeURIComponent(acsId)}`;
    scope.get('/acs/:acsId', { schema: { hide: true, params: AcsParams }, config }, async (request, reply) =>
      relay('GET', acsPath(request.params.acsId), undefined, reply),
    );
    scope.post(
      '/acs/:acsId',
      { schema: { hide: true, params: AcsParams, body: AcsDecision }, config },
      async (request, reply) =>
        relay('POST', acsPath(request.params.acsId), new URLSearchParams(request.body).toString(), reply),
    );
    const payerPath = (intentId: string) => `/upi-payer/${encodeURIComponent(intentId)}`;
    scope.get('/upi-payer/:intentId', { schema: { hide: true, params: PayerParams }, config }, async (request, reply) =>
      relay('GET', payerPath(request.params.intentId), undefined, reply),
    );
    scope.post(
      '/upi-payer/:intentId',
      { schema: { hide: true, params: PayerParams, body: PayerDecision }, config },
      async (request, reply) =>
        relay('POST', payerPath(request.params.intentId), new URLSearchParams(request.body).toString(), reply),
    );
  });
}
