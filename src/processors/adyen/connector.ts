import { createHash } from 'node:crypto';
import { type AuthorizeInput, type AuthorizeOutcome, ProcessorCallError, type StatusResult } from '../types.js';
import { authorizationFailure, failureOf } from './call-failures.js';
import { outcomeOf, type PaymentAnswer } from './outcomes.js';
import { type PaymentRequest, paymentRequestFor } from './payment-request.js';
import { checkoutApiFor } from './sdk-client.js';
import type { AdyenConnectorOptions, AdyenProcessor, AdyenReceipt } from './types.js';
import { eventOfCallback } from './webhook.js';

/**
 * The Adyen connector over the official SDK (`@adyen/api-library`, Checkout API v72). Every call
 * carries the gateway's reference as its Idempotency-Key and as Adyen's `reference`, so a call sent
 * again never charges, captures or refunds twice.
 *
 * Card data is never kept: the request carrying the card number and CVV lives only for the call
 * that sends it, whatever the call's outcome. An authorization that got no answer is settled as
 * Adyen documents it, by its AUTHORISATION notification (which names our reference); the gateway
 * retrying the same authorization sends the same key, so Adyen replays its answer, never charging
 * twice.
 */
export function createAdyenConnector(options: AdyenConnectorOptions): AdyenProcessor {
  const checkout = checkoutApiFor(options);
  const { merchantAccount } = options.credentials;
  const sendPayment = (request: PaymentRequest): Promise<PaymentAnswer> =>
    checkout.PaymentsApi.payments(request, { idempotencyKey: request.reference });

  const modification = async (
    what: string,
    call: () => Promise<{ pspReference: string; status: unknown }>,
  ): Promise<AdyenReceipt> => {
    try {
      const answer = await call();
      return { pspReference: answer.pspReference, status: 'received' };
    } catch (error) {
      const failure = failureOf(error);
      throw new ProcessorCallError(
        `Adyen ${what} failed: ${failure.message}`,
        failure.kind === 'answered' ? failure.status : undefined,
      );
    }
  };

  const connector: AdyenProcessor = {
    name: 'adyen',

    async authorize(input: AuthorizeInput): Promise<AuthorizeOutcome> {
      if (!input.card) return { kind: 'error', retryable: false, message: 'Adyen takes card payments only' };
      const request = paymentRequestFor(input, merchantAccount);
      try {
        const answer = await sendPayment(request);
        return outcomeOf(answer, input.reference, input.capture);
      } catch (error) {
        // Only the failure's kind is kept: the request, card fields included, ends with this call.
        return authorizationFailure(failureOf(error));
      }
    },

    async completeChallenge(payment, returned) {
      const redirectResult = returned.redirectResult;
      if (!redirectResult) return { kind: 'error', retryable: false, message: 'the return carries no redirectResult' };
      try {
        const answer = await checkout.PaymentsApi.paymentsDetails(
          { details: { redirectResult } },
          { idempotencyKey: detailsKey(payment.reference, redirectResult) },
        );
        return outcomeOf(answer, payment.reference, payment.capture);
      } catch (error) {
        // Sent again with the same redirectResult, the call is replayed under the same key.
        return authorizationFailure(failureOf(error));
      }
    },

    capturePayment: ({ processorPaymentId, reference, amount }) =>
      modification('capture', () =>
        checkout.ModificationsApi.captureAuthorisedPayment(
          processorPaymentId,
          { merchantAccount, amount, reference },
          { idempotencyKey: reference },
        ),
      ),

    cancelPayment: ({ processorPaymentId, reference }) =>
      modification('cancel', () =>
        checkout.ModificationsApi.cancelAuthorisedPaymentByPspReference(
          processorPaymentId,
          { merchantAccount, reference },
          { idempotencyKey: reference },
        ),
      ),

    refundPayment: ({ processorPaymentId, reference, amount }) =>
      modification('refund', () =>
        checkout.ModificationsApi.refundCapturedPayment(
          processorPaymentId,
          { merchantAccount, amount, reference },
          { idempotencyKey: reference },
        ),
      ),

    async capture(payment, amount) {
      await connector.capturePayment({
        processorPaymentId: payment.processorPaymentId,
        reference: `${payment.reference}-capture-${amount}`,
        amount: { value: amount, currency: payment.currency },
      });
    },

    async void(payment) {
      await connector.cancelPayment({
        processorPaymentId: payment.processorPaymentId,
        reference: `${payment.reference}-cancel`,
      });
    },

    async refund(payment, amount, reference) {
      const receipt = await connector.refundPayment({
        processorPaymentId: payment.processorPaymentId,
        reference,
        amount: { value: amount, currency: payment.currency },
      });
      // Adyen refunds asynchronously: the REFUND notification settles it.
      return { refundId: receipt.pspReference, status: 'pending' };
    },

    /**
     * Adyen's Checkout API has no look-up by merchant reference, and nothing of the request is kept
     * to send again. The payment stays pending until its AUTHORISATION notification settles it.
     * Never null: that says Adyen never saw the payment, and it may have charged it.
     */
    async queryStatus(reference): Promise<StatusResult> {
      return { processorPaymentId: reference, status: 'pending' };
    },

    parseCallback: eventOfCallback,

    async close() {},
  };
  return connector;
}

/**
 * The details call's key names the return it completes: the same return sent again is replayed,
 * while a forged or stale redirectResult refused first does not block the payer's real one.
 */
const detailsKey = (reference: string, redirectResult: string) =>
  `${reference}-details-${createHash('sha256').update(redirectResult).digest('base64url').slice(0, 16)}`;
