import type { PaymentsContext } from './context.js';
import type { Db } from '../../storage/db.js';
import type { CallbackEvent, CallbackHandlerMap } from '../callbacks/index.js';
import type { Vault } from '../cards/index.js';
import { paymentFor, processorSettlement } from './callback-settlement.js';
import { processorWebhookHandler } from './on-processor-webhook.js';
import type { PaymentRow } from './repository.js';
import { processorOf } from './routing.js';
import { settlePayment } from './settle.js';
import type { Settlement } from './types.js';

/**
 * Provider callbacks settle payments through the same state machine as synchronous answers,
 * inside the transaction that marks the event processed. Late, duplicate and out-of-order
 * events are harmless: the state machine refuses any backwards move.
 */
export function paymentCallbackHandlers(
  ctx: Pick<PaymentsContext, 'clock' | 'logger' | 'processors' | 'vault' | 'connectors' | 'connectionHealth'>,
): CallbackHandlerMap {
  const onOutcome = async (event: CallbackEvent, trx: Db) => {
    const payment = await paymentFor(trx, event);
    if (!payment) {
      ctx.logger.warn({ eventId: event.body.eventId, source: event.source }, 'callback names no payment of ours');
      return;
    }
    const settlement =
      event.source === '3ds'
        ? threeDsSettlement(ctx.vault, event, payment)
        : payment.method === 'upi'
          ? upiSettlement(event)
          : processorSettlement(await processorOf({ ...ctx, db: trx }, payment), event, payment);
    if (!settlement) return;
    await settlePayment({ db: trx, clock: ctx.clock }, { payment, settlement });
  };
  const onProcessorWebhook = processorWebhookHandler(ctx);
  return {
    svc: onOutcome,
    'svc-gateway': onOutcome,
    '3ds': onOutcome,
    stripe: onProcessorWebhook,
    adyen: onProcessorWebhook,
  };
}

/** The UPI PSP's answer from the payer's app: approved, or failed with a UPI response code (U30, U16, U66, U69). */
function upiSettlement(event: CallbackEvent): Settlement | undefined {
  const { transactionId: processorPaymentId, status, providerData = {} } = event.body;
  if (status === 'success') return { kind: 'approved', processorPaymentId, captured: true };
  if (status !== 'failed') return undefined;
  const upiResponse = typeof providerData.upiResponse === 'string' ? providerData.upiResponse : null;
  const reason = typeof providerData.declineReason === 'string' ? providerData.declineReason : 'UPI payment failed';
  return {
    kind: 'failed',
    processorPaymentId,
    failureCode: 'upi_failed',
    declineReason: reason,
    details: { upiResponse, reason },
  };
}

/**
 * The ACS's result carries the final outcome of the challenged authorization (the sandbox ACS
 * authorizes with the processor once the payer is authenticated). Not authenticated (N, U, R) fails
 * the payment with THREEDS_FAILED; authenticated but declined by the issuer is a card decline. The
 * result, ECI and authentication value are kept on the payment, the value sealed.
 */
function threeDsSettlement(
  vault: Vault,
  event: Extract<CallbackEvent, { source: '3ds' }>,
  payment: PaymentRow,
): Settlement | undefined {
  const body = event.body;
  const data = (body.providerData ?? {}) as Record<string, unknown>;
  const processorPaymentId = body.transactionId;
  const declineCode = typeof data.declineCode === 'string' ? data.declineCode : undefined;
  const declineReason = typeof data.declineReason === 'string' ? data.declineReason : undefined;
  const authenticated = body.threeDsResult === 'Y' || body.threeDsResult === 'A';
  const threeDs = {
    result: body.threeDsResult,
    eci: body.eci ?? null,
    authenticationValue: body.authenticationValue ? vault.seal(body.authenticationValue) : null,
  };
  if (body.status === 'pending') return undefined;
  if (!authenticated)
    return {
      kind: 'failed',
      processorPaymentId,
      failureCode: 'threeds_failed',
      declineReason: declineReason ?? `3-D Secure result ${body.threeDsResult}`,
      details: { threeDsResult: body.threeDsResult, acsResponse: declineReason ?? body.status },
      threeDs,
    };
  if (body.status === 'success')
    return { kind: 'approved', processorPaymentId, captured: payment.capture_delay_hours === 0, threeDs };
  if (declineCode)
    return { kind: 'declined', processorPaymentId, declineCode, declineReason: declineReason ?? 'declined', threeDs };
  return {
    kind: 'failed',
    processorPaymentId,
    failureCode: 'processor_failed',
    declineReason: declineReason ?? body.status,
    threeDs,
  };
}
