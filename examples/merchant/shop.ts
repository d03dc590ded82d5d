/**
 * The example merchant: a shop on its own origin. Its server creates the payment request and mints the
 * checkout session token with its API key (the key never reaches a browser); its page embeds the hosted
 * checkout with embed.js. It speaks to the gateway through the merchant SDK (sdk/), as any merchant's
 * server would: over HTTP, with the API key, idempotent and retried.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gateway } from '../../sdk/src/index.js';

export interface ShopOptions {
  /** The gateway's API address (PUBLIC_URL). */
  gatewayUrl: string;
  /** A merchant API key (test mode for the example). */
  apiKey: string;
  port?: number;
  host?: string;
}

export interface Shop {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startShop(options: ShopOptions): Promise<Shop> {
  const gateway = new Gateway({ apiKey: options.apiKey, baseUrl: options.gatewayUrl });
  const server = createServer((req, res) => {
    handle(gateway, new URL(req.url ?? '/', 'http://shop.invalid'))
      .then(({ status, html }) => {
        res.writeHead(status, {
          'Content-Type': 'text/html; charset=utf-8',
          'Cache-Control': 'no-store',
          'Referrer-Policy': 'no-referrer',
        });
        res.end(html);
      })
      .catch((error: Error) => {
        res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`The gateway could not be reached: ${error.message}`);
      });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 4000, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function handle(gateway: Gateway, url: URL): Promise<{ status: number; html: string }> {
  if (url.pathname === '/') return { status: 200, html: productPage() };
  if (url.pathname === '/checkout') {
    const amount = Number(url.searchParams.get('amount') ?? '10.50');
    const currency = url.searchParams.get('currency') ?? 'EUR';
    const request = await gateway.paymentRequests.create({
      amount,
      currency,
      reference: `order-${Date.now()}`,
      description: 'One example mug',
    });
    const session = await gateway.checkoutSessions.create(request.paymentRequestId);
    // checkoutUrl is {CHECKOUT_URL}/main?requestId=…; embed.js lives next to it.
    const checkoutBase = request.checkoutUrl.replace(/\/main\?.*$/, '');
    return {
      status: 200,
      html: checkoutPage({ checkoutBase, requestId: request.paymentRequestId, token: session.token }),
    };
  }
  return { status: 404, html: page('Not found', '<p>No such page.</p>') };
}

const productPage = () =>
  page(
    'Example shop',
    `<h1>Example shop</h1>
<p>One example mug, 10.50 EUR.</p>
<form action="/checkout" method="get">
  <input type="hidden" name="amount" value="10.50"><input type="hidden" name="currency" value="EUR">
  <button type="submit">Buy</button>
</form>`,
  );

/**
 * The three lines a merchant adds to its page: embed.js, a place for the frame, and mount().
 * `loadTimeoutMs`: how long the checkout may take to load before onFailure hears `load.failed`.
 */
export function checkoutPage(input: {
  checkoutBase: string;
  requestId: number;
  token: string;
  loadTimeoutMs?: number;
}): string {
  // JSON in a script: `<` escaped so that no value can close the script element.
  const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
  const loadTimeout = input.loadTimeoutMs ? `\n    loadTimeoutMs: ${json(input.loadTimeoutMs)},` : '';
  return page(
    'Pay for your order',
    `<h1>Pay for your order</h1>
<script src="${input.checkoutBase}/embed.js"></script>
<div id="checkout"></div>
<script>
  window.shopEvents = [];
  const checkout = SvcCheckout.mount('#checkout', {
    requestId: ${json(input.requestId)},
    token: ${json(input.token)},${loadTimeout}
    onReady: (event) => shopEvents.push(event),
    onSuccess: (event) => {
      shopEvents.push(event);
      document.getElementById('result').textContent = 'Thank you! Payment ' + event.paymentId + ' received.';
    },
    onFailure: (event) => {
      shopEvents.push(event);
      // The checkout did not load (embed.js logs why in the console): no broken frame, a word to the payer.
      if (event.type !== 'load.failed') return;
      checkout.unmount();
      document.getElementById('result').textContent = 'The payment page could not be shown. Please try again later.';
    },
    onExpired: (event) => shopEvents.push(event),
  });
</script>
<p id="result" role="status"></p>`,
  );
}

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title></head><body><main>${body}</main></body></html>`;
