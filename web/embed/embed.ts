/**
 * embed.js: a merchant's page adds the hosted checkout with
 *   <script src="{CHECKOUT_URL}/embed.js"></script>
 *   <div id="pay"></div>
 *   <script>SvcCheckout.mount('#pay', { requestId, token, onSuccess(e) { … } })</script>
 * It inserts the checkout's iframe, sizes it to its content and turns the frame's messages into
 * callbacks; on each load of the frame it hands the token to it (type `session`). Messages are accepted
 * only from the checkout's exact origin and that frame's window, and the frame sends them to this page's
 * exact origin; they never carry card data. A checkout that says nothing within `loadTimeoutMs` did not
 * load (most often: this page's origin may not frame it): onFailure hears `load.failed`.
 */
import type { CheckoutEvent, MountOptions, SvcCheckoutApi } from './svc-checkout.js';

// The checkout lives next to this script: {CHECKOUT_URL}/embed.js → {CHECKOUT_URL}/main.
const script = document.currentScript as HTMLScriptElement | null;
const checkoutBase = new URL('.', script?.src ?? window.location.href);
/** How long the checkout has to send its first message before it is reported as not loaded. */
const LOAD_TIMEOUT_MS = 10_000;

function mount(target: Element | string, options: MountOptions): { unmount(): void } {
  const host = typeof target === 'string' ? document.querySelector(target) : target;
  if (!host)
    throw new Error(`SvcCheckout.mount: no element matches ${typeof target === 'string' ? target : 'the target'}`);
  if (!options || !Number.isSafeInteger(Number(options.requestId)) || !options.token)
    throw new Error('SvcCheckout.mount: requestId and token are required');

  const page = new URL('main', checkoutBase);
  page.searchParams.set('requestId', String(options.requestId));
  // The token travels in the fragment: it is never sent to a server or logged, and the page removes it.
  const fragment = new URLSearchParams({ token: options.token, origin: window.location.origin });
  if (options.locale) fragment.set('locale', options.locale);
  page.hash = fragment.toString();

  const frame = document.createElement('iframe');
  frame.src = page.href;
  frame.title = 'Secure checkout';
  frame.setAttribute('allow', 'payment');
  frame.referrerPolicy = 'no-referrer';
  frame.style.cssText = 'width:100%;min-width:280px;height:480px;border:0;display:block;overflow:hidden';

  // A frame the browser refuses (CSP frame-ancestors) looks loaded from here: its load event fires and
  // its content cannot be read. Only the checkout's own first message proves it runs.
  const timeoutMs = positive(options.loadTimeoutMs) ?? LOAD_TIMEOUT_MS;
  const notLoaded = window.setTimeout(() => reportNotLoaded(options, timeoutMs), timeoutMs);

  const onMessage = (event: MessageEvent) => {
    if (event.origin !== checkoutBase.origin || event.source !== frame.contentWindow) return;
    const data = event.data as CheckoutEvent | null;
    if (!data || typeof data !== 'object' || data.source !== 'svc-checkout') return;
    window.clearTimeout(notLoaded);
    switch (data.type) {
      case 'resize':
        if (typeof data.height === 'number' && data.height > 0) frame.style.height = `${Math.ceil(data.height)}px`;
        return;
      case 'ready':
        return options.onReady?.(data);
      case 'payment.succeeded':
        options.onSuccess?.(data);
        if (options.successUrl) window.location.assign(options.successUrl);
        return;
      case 'payment.failed':
        return options.onFailure?.(data);
      case 'expired':
        return options.onExpired?.(data);
      case 'load.failed':
        return; // embed.js's own report: never taken from the frame
    }
  };
  window.addEventListener('message', onMessage);
  // After the bank's 3-D Secure page the checkout comes back without its token (the address bar never
  // keeps it, and a framed page may not be allowed storage): hand it over again on every load.
  frame.addEventListener('load', () => {
    const session = { source: 'svc-checkout', type: 'session', token: options.token, locale: options.locale };
    frame.contentWindow?.postMessage(session, checkoutBase.origin);
  });
  host.appendChild(frame);
  return {
    unmount() {
      window.clearTimeout(notLoaded);
      window.removeEventListener('message', onMessage);
      frame.remove();
    },
  };
}

/**
 * The merchant's page hears it (onFailure, `load.failed`) and its developer reads why in the console:
 * the browser's own CSP message names the allowed origins, not the setting that adds one.
 */
function reportNotLoaded(options: MountOptions, timeoutMs: number): void {
  console.error(
    `svc-checkout: the checkout (${checkoutBase.origin}) did not load in this page within ${timeoutMs} ms. ` +
      `If the browser refused to frame it (a Content-Security-Policy frame-ancestors error above), add this ` +
      `page's origin ${window.location.origin} to the checkoutOrigins setting of your merchant account, in ` +
      `the mode of your key (PATCH /settings {"checkoutOrigins": [...]}); otherwise check that ` +
      `${checkoutBase.origin} can be reached.`,
  );
  options.onFailure?.({ source: 'svc-checkout', type: 'load.failed', reason: 'not_loaded', timeoutMs });
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

const api: SvcCheckoutApi = { mount };
(window as unknown as { SvcCheckout: SvcCheckoutApi }).SvcCheckout = api;
