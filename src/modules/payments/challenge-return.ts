import type { ChallengeReturn } from '../../processors/types.js';
import { notFound } from '../../errors.js';
import { hmacHex, safeEqual } from '../../lib/crypto.js';
import { httpUrlOf } from '../../lib/return-url.js';
import { checkoutPageUrl } from '../payment-requests/index.js';
import { findPaymentById, type PaymentRow } from './repository.js';
import { atProcessor, processorOf } from './routing.js';
import { settlePayment } from './settle.js';
import { toSettlement } from './settlement-of.js';
import type { PaymentContext } from './types.js';

type ReturnContext = PaymentContext;

/**
 * A real processor's challenge ends on this return: the authorization's outcome is read from the
 * processor (Stripe's PaymentIntent, Adyen's /payments/details with the redirectResult), never from
 * the browser's query, and settled like any answer. The sandbox's ACS reports by callback instead.
 * Undefined when nothing was settled here (another path settled it, or there was no answer in time:
 * reconciliation or the processor's webhook then does).
 */
async function completeAtProcessor(
  ctx: ReturnContext,
  payment: PaymentRow,
  returned: ChallengeReturn,
): Promise<PaymentRow | undefined> {
  if (payment.status !== 'requires_action' || payment.processor_payment_id === null) return undefined;
  const processor = await processorOf(ctx, payment);
  if (!processor?.completeChallenge) return undefined;
  const outcome = await processor.completeChallenge(
    { ...atProcessor(payment), capture: payment.capture_delay_hours === 0 },
    returned,
  );
  const settlement = toSettlement(outcome);
  return settlement && (await settlePayment(ctx, { payment, settlement }));
}

/** Where the payer lands after the outcome is known: the merchant's page, or the gateway's own result page. */
export type ChallengeLanding =
  | { kind: 'redirect'; location: string }
  | { kind: 'page'; status: string; paymentId: number; paymentRequestId: number };

const signature = (ctx: ReturnContext, paymentId: number) =>
  hmacHex('sha256', ctx.secrets.jwtSecret, `3ds-return:${paymentId}`);

/**
 * The address the ACS sends the payer's browser back to after a challenge: the gateway's, under
 * PUBLIC_URL, signed so nobody can read another payment's outcome by guessing its id.
 */
export function challengeReturnUrl(ctx: ReturnContext, paymentId: number): string {
  return `${ctx.config.publicUrl}/payments/${paymentId}/return?signature=${signature(ctx, paymentId)}`;
}

/**
 * The payer is back from the ACS (which reported the result on /callbacks/3ds first). A payment the
 * hosted checkout started goes back into the checkout (in the merchant's frame), told which payment to
 * show; the page reads the outcome itself with its token and follows successUrl / failureUrl from
 * there. Any other payment is sent to successUrl or failureUrl with paymentRequestId, paymentId and
 * status in the query, or shown the gateway's result page when the merchant gave none (or a stored
 * one that is no http(s) URL), or while the outcome is still being settled (docs/decisions.md "3-D Secure return flow").
 */
export async function returnFromChallenge(
  ctx: ReturnContext,
  input: { paymentId: number; signature: string; returned: ChallengeReturn },
): Promise<ChallengeLanding> {
  if (!safeEqual(input.signature, signature(ctx, input.paymentId))) throw notFound('payment');
  const found = await findPaymentById(ctx.db, input.paymentId);
  if (!found) throw notFound('payment');
  const payment = (await completeAtProcessor(ctx, found, input.returned)) ?? found;
  if (payment.options.startedFrom === 'checkout') {
    const page = new URL(checkoutPageUrl(ctx.config.checkoutUrl, payment.payment_request_id));
    page.searchParams.set('paymentId', String(payment.id));
    return { kind: 'redirect', location: page.toString() };
  }
  const landing = { status: payment.status, paymentId: payment.id, paymentRequestId: payment.payment_request_id };
  const approved = payment.status === 'succeeded' || payment.status === 'authorized';
  const settled = approved || payment.status === 'failed' || payment.status === 'canceled';
  // A stored value from before return URLs were checked, or not an http(s) URL: the gateway's own page.
  const url = httpUrlOf(payment.options[approved ? 'successUrl' : 'failureUrl']);
  if (!settled || !url) return { kind: 'page', ...landing };
  url.searchParams.set('paymentRequestId', String(landing.paymentRequestId));
  url.searchParams.set('paymentId', String(landing.paymentId));
  url.searchParams.set('status', landing.status);
  return { kind: 'redirect', location: url.toString() };
}
