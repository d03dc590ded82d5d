import './style.css';
import { api, ApiError, type CheckoutPayment, type CheckoutView } from './api.js';
import { defaultCountry } from './country.js';
import { h, replaceContent } from '../../shared/dom.js';
import { cardForm, type CardSubmission } from './form.js';
import { messenger, parentOriginOf } from './messages.js';
import { methodChooser, type PaymentMethod } from './methods.js';
import { clearSession, loadSession, saveSession, type CheckoutSession } from './session.js';
import { upiPanel } from './upi.js';
import { walletPanel, type WalletSubmission } from './wallet.js';

/** Payment request states in which nothing is left to pay. */
const ALREADY_PAID = new Set(['processing', 'authorized', 'paid', 'partially_refunded', 'refunded']);
const GONE = new Set(['canceled', 'expired']);
/** Payment states after which the bank's answer is known. */
const APPROVED = new Set(['succeeded', 'authorized']);
const SETTLED = new Set([...APPROVED, 'failed', 'canceled']);
/** Payment states in which the payer (a UPI app) or the bank has still to answer. */
const AWAITING = new Set(['pending', 'requires_action']);

const root = document.getElementById('checkout')!;
const live = document.getElementById('announcer')!;

/** Screen readers hear what changed (aria-live="assertive" region outside the re-rendered part). */
function announce(message: string): void {
  live.textContent = '';
  // A new text node after a tick is announced even when the message repeats.
  setTimeout(() => (live.textContent = message), 50);
}

async function start(): Promise<void> {
  const url = new URL(window.location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const param = (name: string) => fragment.get(name) ?? url.searchParams.get(name);
  const requestId = Number(url.searchParams.get('requestId'));
  // Set by the gateway when the bank's 3-D Secure page sends the payer back here.
  const returningPaymentId = Number(url.searchParams.get('paymentId')) || undefined;
  const token = param('token');
  if (param('legacy') === 'apiKey')
    console.warn(
      'svc-checkout: the apiKey parameter is deprecated and will stop working; it exposes your API key, which ' +
        'is now flagged as exposed: rotate it. Mint a checkout session token on your server instead ' +
        '(POST /payment-requests/{id}/checkout-session) and pass it as token.',
    );

  // The token (and anything else but the request id) leaves the address bar, history and any later referrer.
  window.history.replaceState(null, '', `${url.pathname}?requestId=${encodeURIComponent(String(requestId || ''))}`);

  const valid = Number.isSafeInteger(requestId) && requestId > 0;
  let session: CheckoutSession | null = null;
  if (token)
    session = {
      token,
      parentOrigin: parentOriginOf(param('origin')),
      locale: param('locale') ?? navigator.language,
      successUrl: httpUrl(param('successUrl')),
      failureUrl: httpUrl(param('failureUrl')),
    };
  else if (valid) session = loadSession(requestId) ?? (await sessionFromParent());
  const post = messenger(session?.parentOrigin ?? parentOriginOf(null));
  watchHeight(post);

  if (!session || !valid) return showExpired(post, requestId);
  saveSession(requestId, session);
  await load(requestId, session, post, returningPaymentId);
}

/**
 * Framed and back from 3-D Secure without a token: embed.js hands it over again (type `session`),
 * from the embedding page's exact origin and window only. Nothing within 3 seconds: no session.
 */
function sessionFromParent(): Promise<CheckoutSession | null> {
  const parentOrigin = parentOriginOf(null);
  if (!parentOrigin) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(null), 3000);
    const done = (session: CheckoutSession | null) => {
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
      resolve(session);
    };
    const onMessage = (event: MessageEvent) => {
      const data = event.data as { source?: unknown; type?: unknown; token?: unknown; locale?: unknown } | null;
      if (event.source !== window.parent || event.origin !== parentOrigin) return;
      if (data?.source !== 'svc-checkout' || data.type !== 'session' || typeof data.token !== 'string') return;
      const locale = typeof data.locale === 'string' ? data.locale : navigator.language;
      done({ token: data.token, parentOrigin, locale, successUrl: null, failureUrl: null });
    };
    window.addEventListener('message', onMessage);
  });
}

async function load(
  requestId: number,
  session: CheckoutSession,
  post: ReturnType<typeof messenger>,
  returning?: number,
) {
  replaceContent(root, h('p', { class: 'status', role: 'status' }, 'Loading…'));
  const client = api(session.token);
  let request: CheckoutView;
  try {
    request = await client.paymentRequest(requestId);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403 || error.status === 404))
      return showExpired(post, requestId);
    return showProblem('The payment page could not be loaded. Reload to try again.');
  }
  const money = new Intl.NumberFormat(session.locale, { style: 'currency', currency: request.currency });
  const amount = money.format(request.amount);
  const header = h(
    'header',
    {},
    h('p', { class: 'merchant' }, request.merchantName || 'Payment'),
    h('p', { class: 'amount' }, amount),
    request.description ? h('p', { class: 'description' }, request.description) : null,
  );
  // Wallets are offered when the merchant enabled them, in test mode (the sandbox's wallet tokens).
  const walletOffered = request.walletEnabled && !request.livemode;
  const context: PageContext = { requestId, request, session, post, header, amount, client, walletOffered };

  // Back from the bank's 3-D Secure page (the gateway's signed return sent the payer here): the address
  // bar only names the payment; its outcome is the gateway's word, read with the token.
  if (returning !== undefined && request.lastPayment?.paymentId === returning) {
    for (let tries = 0; !SETTLED.has(request.lastPayment?.status ?? '') && tries < 40; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      request = await client.paymentRequest(requestId).catch(() => request);
    }
    const outcome = request.lastPayment?.status ?? '';
    if (APPROVED.has(outcome)) return succeed(context, returning, outcome);
    if (SETTLED.has(outcome))
      return fail(context, returning, 'Your bank did not confirm this payment. Try again or use another card.');
    return showProblem('Your bank has not confirmed the payment yet. Reload this page in a moment.');
  }
  if (request.status === 'processing' && request.lastPayment && AWAITING.has(request.lastPayment.status))
    return awaitOutcome(context, request.lastPayment.paymentId);
  if (ALREADY_PAID.has(request.status)) {
    replaceContent(
      root,
      header,
      h('h1', {}, 'Already paid'),
      h('p', {}, 'This payment has already been made. Nothing more to pay.'),
    );
    announce('This payment has already been made.');
    post('ready', { paymentRequestId: requestId, status: request.status });
    return;
  }
  if (GONE.has(request.status)) return showExpired(post, requestId);
  showForm(context);
  post('ready', { paymentRequestId: requestId, status: request.status });
}

/**
 * Reloaded while an attempt waits for the payer or the bank (a UPI approval most often): the page waits
 * for its outcome, polling as the UPI panel does, rather than call it paid or offer to pay a second time.
 * The attempt's own expiry (UPI, 3-D Secure) reopens the request, which ends the wait.
 */
async function awaitOutcome(context: PageContext, paymentId: number): Promise<void> {
  const { requestId, post } = context;
  replaceContent(
    root,
    context.header,
    h('h1', {}, 'Waiting for your approval'),
    h('p', {}, 'If your UPI app or your bank asks you to approve this payment, approve it there.'),
    h('p', { class: 'status', role: 'status', 'aria-busy': 'true' }, 'This page updates by itself.'),
  );
  announce('Waiting for your approval in your UPI app or with your bank. This page updates by itself.');
  post('ready', { paymentRequestId: requestId, status: 'processing' });
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const request = await context.client.paymentRequest(requestId).catch(() => null);
    if (!request || request.status === 'processing') continue;
    if (request.status === 'open')
      return fail(context, paymentId, 'The payment was declined or not completed. Nothing was charged. Try again.');
    if (GONE.has(request.status)) return showExpired(post, requestId);
    return succeed(context, paymentId, request.lastPayment?.status ?? 'succeeded');
  }
}

interface PageContext {
  requestId: number;
  request: CheckoutView;
  session: CheckoutSession;
  post: ReturnType<typeof messenger>;
  header: HTMLElement;
  amount: string;
  client: ReturnType<typeof api>;
  walletOffered: boolean;
}

/** One form per page: after a decline the payer's details stay and only the card fields are cleared. */
let form: ReturnType<typeof cardForm> | null = null;
let upi: ReturnType<typeof upiPanel> | null = null;
let wallet: ReturnType<typeof walletPanel> | null = null;
/** The method the payer chose last; a decline comes back to it. */
let chosen = 'card';

function showForm(context: PageContext, notice?: string): void {
  form ??= cardForm({
    payLabel: `Pay ${context.amount}`,
    ...payerDefaults(context),
    announce,
    onSubmit: (card) => void pay(context, () => payByCard(context, card)),
  });
  const card = form;
  const methods: PaymentMethod[] = [
    { id: 'card', label: 'Card', element: card.element, focus: () => card.focusCard() },
  ];
  const upiView = (upi ??= upiPanel(upiHooks(context)));
  methods.push({ id: 'upi', label: 'UPI', element: upiView.element, focus: () => upiView.focus() });
  if (context.walletOffered) {
    const walletView = (wallet ??= walletPanel({
      known: context.request.payer ?? {},
      announce,
      onSubmit: (w) => void pay(context, () => payByWallet(context, w)),
    }));
    methods.push({ id: 'wallet', label: 'Wallet', element: walletView.element, focus: () => walletView.focus() });
  }
  if (notice) form.clearCard();
  replaceContent(
    root,
    context.header,
    h('h1', {}, methods.length === 1 ? 'Pay by card' : 'Choose how to pay'),
    // An alert is read out as it appears; the live region would repeat the same words in a second element.
    notice ? h('p', { class: 'notice', id: 'notice', role: 'alert' }, notice) : null,
    methodChooser(methods, chosen, (id) => (chosen = id)),
  );
  if (notice) {
    (methods.find((m) => m.id === chosen) ?? methods[0]).focus();
  }
}

/**
 * What the forms need not ask: the payer fields the merchant gave (the payment request's `payer`), and
 * the country field's default when it gave no country (country.ts).
 */
function payerDefaults(context: PageContext) {
  return {
    known: context.request.payer ?? {},
    country: defaultCountry(context.request.currency, context.session.locale),
  };
}

/** The UPI panel's view of the page (web/checkout/src/upi.ts): the API with the token, and the page's outcomes. */
function upiHooks(context: PageContext): Parameters<typeof upiPanel>[0] {
  const { client, requestId, request } = context;
  return {
    payLabel: `Pay ${context.amount} with UPI`,
    ...payerDefaults(context),
    testMode: !request.livemode,
    announce,
    show: (...nodes) => replaceContent(root, context.header, ...nodes),
    submit: (body) => client.payByUpi(requestId, { ...body, amount: request.amount, unit: request.currency }),
    requestStatus: async () => (await client.paymentRequest(requestId)).status,
    succeeded: (paymentId) => succeed(context, paymentId, 'succeeded'),
    failed: (paymentId, reason) => fail(context, paymentId, reason),
    refused: (error) => {
      if (error instanceof ApiError && error.status === 401) return showExpired(context.post, requestId);
      const message =
        error instanceof ApiError && error.status < 500 ? error.message : 'The payment could not be sent.';
      showForm(context, `${message} Nothing was charged. Please try again.`);
    },
    expired: () => showExpired(context.post, requestId),
  };
}

/**
 * What every payment sends besides the method's fields: the real browser for 3-D Secure. Never the
 * merchant's options (return pages, notifyUrl, capture delay, reference, IP address): the gateway refuses
 * them with a checkout token and takes them from the payment request.
 */
function commonFields() {
  return { browserInfo: browserInfo() };
}

const payByCard = (context: PageContext, card: CardSubmission) =>
  context.client.payByCard(context.requestId, {
    ...card,
    amount: context.request.amount,
    unit: context.request.currency,
    ...commonFields(),
  });

const payByWallet = (context: PageContext, submission: WalletSubmission) =>
  context.client.payByWallet(context.requestId, { ...submission, ...commonFields() });

async function pay(context: PageContext, submit: () => Promise<CheckoutPayment>): Promise<void> {
  const { requestId } = context;
  replaceContent(
    root,
    context.header,
    h('p', { class: 'status', role: 'status', 'aria-busy': 'true' }, 'Processing your payment…'),
  );
  announce('Processing your payment.');
  let payment: CheckoutPayment;
  try {
    payment = await submit();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return showExpired(context.post, requestId);
    const failed = error instanceof ApiError ? error.failedPayment : null;
    if (failed) return fail(context, failed.paymentId, declineMessage(failed));
    const message = error instanceof ApiError && error.status < 500 ? error.message : 'The payment could not be sent.';
    return showForm(context, `${message} Nothing was charged. Please try again.`);
  }
  switch (payment.status) {
    case 'succeeded':
    case 'authorized':
    case 'pending':
      return succeed(context, payment.paymentId, payment.status);
    case 'requires_action':
      if (payment.redirectUrl) return openChallenge(context, payment.redirectUrl);
      return fail(context, payment.paymentId, 'Your bank asked for a check we could not open. Try another card.');
    case 'failed':
    case 'canceled':
      return fail(context, payment.paymentId, declineMessage(payment));
  }
}

/**
 * The bank's 3-D Secure page replaces the checkout in its frame. It cannot tell embed.js its height (it
 * runs none of our code, often on the bank's own origin), so the checkout first takes the height of an
 * EMV 3-D Secure challenge window (html.challenge, style.css) and reports it: the frame keeps that
 * height while the bank's pages show, until the checkout is back and reports its own.
 */
function openChallenge(context: PageContext, url: string): void {
  document.documentElement.classList.add('challenge');
  replaceContent(root, context.header, h('p', { class: 'status', role: 'status' }, 'Opening your bank’s check…'));
  // Now, not from the observer: its report comes with the next rendering, which may be after the page is gone.
  context.post('resize', { height: pageHeight() });
  window.location.assign(url);
}

function succeed(context: PageContext, paymentId: number, status: string): void {
  clearSession(context.requestId);
  replaceContent(
    root,
    context.header,
    h('h1', {}, 'Payment successful'),
    h('p', {}, `Thank you. You paid ${context.amount}.`),
  );
  announce(`Payment successful. You paid ${context.amount}.`);
  context.post('payment.succeeded', { paymentRequestId: context.requestId, paymentId, status });
  const next = shopPage(context, 'successUrl', paymentId, status);
  if (next) window.location.assign(next);
}

function fail(context: PageContext, paymentId: number, reason: string): void {
  context.post('payment.failed', { paymentRequestId: context.requestId, paymentId, status: 'failed' });
  showForm(context, reason);
  const back = shopPage(context, 'failureUrl', paymentId, 'failed');
  if (back) root.append(h('p', {}, h('a', { href: back }, 'Return to the shop')));
}

/**
 * The merchant's successUrl / failureUrl with the same query the gateway's 3-D Secure return adds: the
 * payment request's, else the page's own parameter (an http(s) URL either way, or none). Framed, the page
 * stays in the frame and the embedding page decides (embed.js `successUrl`).
 */
function shopPage(
  context: PageContext,
  which: 'successUrl' | 'failureUrl',
  paymentId: number,
  status: string,
): string | null {
  const target = httpUrl(context.request[which]) ?? context.session[which];
  if (!target || context.session.parentOrigin) return null;
  const url = new URL(target);
  url.searchParams.set('paymentRequestId', String(context.requestId));
  url.searchParams.set('paymentId', String(paymentId));
  url.searchParams.set('status', status);
  return url.href;
}

/** The decline in plain words, and what to do about it. */
function declineMessage(payment: CheckoutPayment): string {
  const reason = (payment.declineReason ?? '').toLowerCase();
  const why = reason.includes('insufficient')
    ? 'Your card does not have enough funds for this payment.'
    : reason.includes('expired')
      ? 'Your card has expired.'
      : reason.includes('limit')
        ? 'This payment is over your card’s limit.'
        : reason.includes('not permitted')
          ? 'Your card cannot be used for this payment.'
          : payment.declineCode
            ? 'Your bank declined this payment.'
            : 'The payment could not be completed.';
  return `${why} Nothing was charged. ${chosen === 'wallet' ? 'Try again or pay another way.' : 'Try another card.'}`;
}

function showExpired(post: ReturnType<typeof messenger>, requestId: number): void {
  if (requestId) clearSession(requestId);
  replaceContent(
    root,
    h('h1', {}, 'This payment link has expired'),
    h('p', {}, 'Go back to the shop to start the payment again.'),
  );
  announce('This payment link has expired.');
  post('expired', { paymentRequestId: requestId || undefined });
}

function showProblem(message: string): void {
  replaceContent(root, h('h1', {}, 'Something went wrong'), h('p', {}, message));
  announce(message);
}

/** For 3-D Secure: what the issuer's risk checks read from the payer's real browser. */
function browserInfo() {
  return {
    acceptHeader: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    colorDepth: String(window.screen.colorDepth),
    language: navigator.language,
    screenHeight: String(window.screen.height),
    screenWidth: String(window.screen.width),
    timezone: String(new Date().getTimezoneOffset()),
    userAgent: navigator.userAgent,
    javaEnabled: false,
    javascriptEnabled: true,
  };
}

/** The embedding page sizes the frame to the content, so there is never an inner scrollbar. */
function watchHeight(post: ReturnType<typeof messenger>): void {
  let last = 0;
  new ResizeObserver(() => {
    const height = pageHeight();
    if (height !== last) post('resize', { height: (last = height) });
  }).observe(document.documentElement);
}

const pageHeight = () => Math.ceil(document.documentElement.getBoundingClientRect().height);

function httpUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

void start();
