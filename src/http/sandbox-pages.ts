import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from '../context.js';

const AcsParams = Type.Object({ acsId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' }) });
const AcsDecision = Type.Object({ decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]) });

/**
 * The built-in sandbox's 3-D Secure challenge page, served under the gateway's own address: the
 * sandbox listens on a random loopback port no payer's browser can reach, so the gateway relays its
 * `GET /acs/{id}` and the form's `POST /acs/{id}` (decisions.md "3-D Secure return flow"). Only
 * registered when the gateway runs the built-in sandbox; an external one has its own public address.
 */
export async function sandboxPages(app: App, sandboxUrl: string): Promise<void> {
  await app.register(async (plugin) => {
    const scope = plugin as App;
    // The ACS page posts a plain HTML form.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    const relay = async (method: 'GET' | 'POST', acsId: string, body: string | undefined, reply: FastifyReply) => {
      const answer = await fetch(`${sandboxUrl}/acs/${encodeURIComponent(acsId)}`, {
        method,
        body,
        headers: body ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
        redirect: 'manual',
      });
      const location = answer.headers.get('location');
      if (location) reply.header('location', location);
      // A challenge runs inside the frame that asked for it (the hosted checkout in a merchant's page), as
      // 3-D Secure 2 challenges do: any page may frame it. Its own inline style; nothing else loads.
      reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors *");
      reply.raw.removeHeader('X-Frame-Options');
      return reply
        .code(answer.status)
        .type(answer.headers.get('content-type') ?? 'text/html; charset=utf-8')
        .send(await answer.text());
    };
    const config = { auth: 'none' as const };
    scope.get('/acs/:acsId', { schema: { hide: true, params: AcsParams }, config }, async (request, reply) =>
      relay('GET', request.params.acsId, undefined, reply),
    );
    scope.post(
      '/acs/:acsId',
      { schema: { hide: true, params: AcsParams, body: AcsDecision }, config },
      async (request, reply) =>
        relay('POST', request.params.acsId, new URLSearchParams(request.body).toString(), reply),
    );
  });
}
