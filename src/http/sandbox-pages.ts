import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { App } from './fastify-app.js';

const PageParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' }) });
const decision = (...choices: string[]) =>
  Type.Object({ decision: Type.Union(choices.map((choice) => Type.Literal(choice))) });
/** The relayed pages and the answers their forms post. */
const PAGES = [
  { path: '/acs', body: decision('approve', 'deny') },
  { path: '/upi-payer', body: decision('approve', 'decline') },
];

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
    // Both pages post plain HTML forms.
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
      // A challenge runs inside the frame that asked for it (the hosted checkout in a merchant's page), as
      // 3-D Secure 2 challenges do: any page may frame it. Its own inline style; nothing else loads.
      reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors *");
      reply.removeHeader('X-Frame-Options');
      return reply
        .code(answer.status)
        .type(answer.headers.get('content-type') ?? 'text/html; charset=utf-8')
        .send(await answer.text());
    };
    const config = { auth: 'none' as const };
    for (const page of PAGES) {
      const target = (id: string) => `${page.path}/${encodeURIComponent(id)}`;
      scope.get(`${page.path}/:id`, { schema: { hide: true, params: PageParams }, config }, async (request, reply) =>
        relay('GET', target(request.params.id), undefined, reply),
      );
      scope.post(
        `${page.path}/:id`,
        { schema: { hide: true, params: PageParams, body: page.body }, config },
        async (request, reply) =>
          relay('POST', target(request.params.id), new URLSearchParams(request.body).toString(), reply),
      );
    }
  });
}
