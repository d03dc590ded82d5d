import type Stripe from 'stripe';
import type { AuthorizeInput, AuthorizeOutcome } from '../types.js';
import { abandon, wasAbandoned } from './abandon.js';
import { gatewayDecline } from './decline-codes.js';
import { classify, failureMessage, type Failure } from './failures.js';
import { outcomeOfIntent } from './intent-outcome.js';
import type { AttemptJournal } from './journal.js';
import { keys } from './keys.js';

export interface StripeCalls {
  stripe: Stripe;
  journal: AttemptJournal;
}

/**
 * A card authorization in three idempotent calls: the card becomes a PaymentMethod (raw card
 * numbers are documented only there), a PaymentIntent is created unconfirmed, then confirmed.
 * Keeping the create apart from the confirmation means the create can be replayed to find the
 * PaymentIntent (`queryStatus`) without ever charging, and only the confirmation can be
 * ambiguous.
 */
export async function authorize({ stripe, journal }: StripeCalls, input: AuthorizeInput): Promise<AuthorizeOutcome> {
  if (!input.card) return { kind: 'error', retryable: false, message: 'the Stripe connector takes cards only' };
  const { reference, card } = input;
  await journal.note(reference, {});

  let paymentMethodId: string;
  try {
    const paymentMethod = await stripe.paymentMethods.create(
      {
        type: 'card',
        card: {
          number: card.number,
          exp_month: card.expMonth,
          exp_year: card.expYear,
          ...(card.cvv ? { cvc: card.cvv } : {}),
        },
        billing_details: { name: card.holder },
        metadata: { payment_id: reference },
      },
      { idempotencyKey: keys.paymentMethod(reference) },
    );
    paymentMethodId = paymentMethod.id;
  } catch (error) {
    return beforeConfirmation(classify(error));
  }

  const intentParams: Stripe.PaymentIntentCreateParams = {
    amount: input.amount,
    currency: input.currency.toLowerCase(),
    payment_method: paymentMethodId,
    capture_method: input.capture ? 'automatic' : 'manual',
    description: reference,
    metadata: { payment_id: reference },
  };
  await journal.note(reference, { intentParams });
  let intentId: string;
  try {
    intentId = (await stripe.paymentIntents.create(intentParams, { idempotencyKey: keys.paymentIntent(reference) })).id;
  } catch (error) {
    return beforeConfirmation(classify(error));
  }
  await journal.note(reference, { paymentIntentId: intentId });

  try {
    const confirmed = await stripe.paymentIntents.confirm(
      intentId,
      {
        return_url: input.threeDS.returnUrl,
        ...(input.threeDS.force ? { payment_method_options: { card: { request_three_d_secure: 'any' } } } : {}),
      },
      { idempotencyKey: keys.confirm(reference) },
    );
    return outcomeOfIntent(confirmed);
  } catch (error) {
    return afterConfirmation(stripe, intentId, classify(error));
  }
}

/**
 * This call confirmed nothing yet, so it charged nothing: any failure short of a refusal is safe to
 * retry elsewhere, unless another call for the same payment is still running.
 */
function beforeConfirmation(failure: Failure): AuthorizeOutcome {
  switch (failure.kind) {
    case 'card':
      return {
        kind: 'declined',
        processorPaymentId: null,
        ...gatewayDecline(failure.error.decline_code ?? failure.error.code),
      };
    case 'rejected':
      return { kind: 'error', retryable: false, message: failureMessage(failure) };
    case 'busy':
      return { kind: 'timeout' };
    default:
      return { kind: 'error', retryable: true, message: failureMessage(failure) };
  }
}

async function afterConfirmation(stripe: Stripe, intentId: string, failure: Failure): Promise<AuthorizeOutcome> {
  switch (failure.kind) {
    case 'card': {
      const { error } = failure;
      return {
        kind: 'declined',
        processorPaymentId: error.payment_intent?.id ?? intentId,
        ...gatewayDecline(error.decline_code ?? error.code),
      };
    }
    case 'rejected':
      return { kind: 'error', retryable: false, message: failureMessage(failure) };
    case 'unknown':
    case 'busy':
      return { kind: 'timeout' };
    case 'refused':
    case 'server':
      // Safe elsewhere only once this PaymentIntent provably never ran and never can.
      return settleUnconfirmed(stripe, intentId, failure);
  }
}

async function settleUnconfirmed(stripe: Stripe, intentId: string, failure: Failure): Promise<AuthorizeOutcome> {
  const retryable: AuthorizeOutcome = { kind: 'error', retryable: true, message: failureMessage(failure) };
  // A confirmation Stripe refused (429, never sent) cannot come back; a 5xx's might.
  const unsettled: AuthorizeOutcome = failure.kind === 'refused' ? retryable : { kind: 'timeout' };
  let intent: Stripe.PaymentIntent | 'abandoned' | undefined;
  try {
    intent = await stripe.paymentIntents.retrieve(intentId);
  } catch {
    return unsettled;
  }
  if (intent.status === 'requires_confirmation') intent = await abandon(stripe, intentId);
  if (intent === undefined) return unsettled;
  if (intent === 'abandoned' || wasAbandoned(intent)) return retryable;
  return outcomeOfIntent(intent);
}
