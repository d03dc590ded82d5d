import Stripe from 'stripe';

/** Stripe's own API host: where the SDK goes when no STRIPE_API_BASE is set. */
export const STRIPE_API_HOST = 'https://api.stripe.com';

/**
 * The official SDK, pointed at `apiBase` (a proxy or a test server) when one is given. The SDK
 * takes a host, port and protocol, not a URL, so a base with a path cannot be honoured: refused at
 * start rather than sending requests somewhere else.
 */
export function createStripeClient(secretKey: string, apiBase: string | undefined, timeoutMs: number): Stripe {
  const base = new URL(apiBase ?? STRIPE_API_HOST);
  if ((base.pathname !== '/' && base.pathname !== '') || base.search !== '') {
    throw new Error(`STRIPE_API_BASE takes a scheme, host and port only, not ${base.pathname}${base.search}`);
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new Error(`STRIPE_API_BASE must be http or https, not ${base.protocol}`);
  }
  const protocol = base.protocol === 'https:' ? 'https' : 'http';
  return new Stripe(secretKey, {
    host: base.hostname,
    port: Number(base.port || (protocol === 'https' ? 443 : 80)),
    protocol,
    timeout: timeoutMs,
    // The gateway decides what a failure means (fail over, reconcile); a hidden retry inside the
    // SDK would spend the time budget and blur "refused" and "no answer".
    maxNetworkRetries: 0,
    telemetry: false,
  });
}
