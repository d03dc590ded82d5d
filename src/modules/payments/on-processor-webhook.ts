import type { Db } from '../../storage/db.js';
import type { CallbackEvent, CallbackHandler } from '../callbacks/index.js';
import type { PaymentsContext } from './context.js';
import { recordRefundOutcome } from './finish-refund.js';
import { paymentFor, processorSettlement } from './callback-settlement.js';
import { findPayment, findRefund, type PaymentRow } from './repository.js';
import { processorOf } from './routing.js';
import { settlePayment } from './settle.js';

type WebhookContext = Pick<
  PaymentsContext,
  'clock' | 'logger' | 'processors' | 'vault' | 'connectors' | 'connectionHealth'
>;

/**
 * The processors' own webhooks (sources stripe and adyen), each event as the connector recorded it
 * with the connection whose secret verified it. Only that connection's payments and refunds are
 * touched: a merchant holds its connections' secrets, so an event naming another merchant's payment
 * is ignored. Late, duplicate and out-of-order events change nothing (the state machine, and a
 * refund's first final word wins).
 * - An authorization's outcome settles the payment, read by its connector's parseCallback.
 * - A refund that succeeded or failed finishes the gateway's refund named by our reference (`rf_<id>`).
 * - A dispute is a chargeback: logged with the payment; the stored event keeps status `chargeback`.
 * - A failed capture or cancellation: logged with the payment, nothing else (the merchant retries).
 */
export function processorWebhookHandler(ctx: WebhookContext): CallbackHandler {
  return async (event, trx) => {
    const status = event.body.status;
    if (status === 'refunded' || status === 'refund_failed') return onRefund(ctx, event, trx);
    const payment = await connectionPaymentFor(trx, event);
    if (!payment) {
      ctx.logger.warn(
        { eventId: event.body.eventId, source: event.source, connectionId: connectionOf(event) },
        'processor webhook names no payment of its connection',
      );
      return;
    }
    const facts = { paymentId: payment.id, connectionId: payment.processor_connection_id, eventId: event.body.eventId };
    switch (status) {
      case 'chargeback':
        ctx.logger.warn(
          { ...facts, amount: event.body.amount, currency: event.body.currency },
          'chargeback: the payment is disputed at the processor',
        );
        return;
      case 'capture_failed':
      case 'cancellation_failed':
        ctx.logger.warn({ ...facts, reason: dataOf(event).reason }, `processor reports ${status}`);
        return;
      default: {
        const processor = await processorOf({ ...ctx, db: trx }, payment);
        const settlement = processorSettlement(processor, event, payment);
        if (settlement) await settlePayment({ db: trx, clock: ctx.clock }, { payment, settlement });
      }
    }
  };
}

/** The connector's record: the members Stripe's or Adyen's event carries beyond the common ones. */
const dataOf = (event: CallbackEvent) => (event.body.providerData ?? {}) as Record<string, unknown>;

const connectionOf = (event: CallbackEvent): string | undefined => {
  const id = dataOf(event).connectionId;
  return typeof id === 'string' ? id : undefined;
};

/** The payment the event names, locked, when it went through the connection the event came by. */
async function connectionPaymentFor(trx: Db, event: CallbackEvent): Promise<PaymentRow | undefined> {
  const payment = await paymentFor(trx, event);
  const connectionId = connectionOf(event);
  return payment && connectionId !== undefined && payment.processor_connection_id === connectionId
    ? payment
    : undefined;
}

/**
 * The processor's refund carries our reference (Stripe: metadata.refund_id, Adyen: the REFUND item's
 * merchantReference). A refund made outside the gateway (the processor's dashboard) names none of ours.
 */
async function onRefund(ctx: WebhookContext, event: CallbackEvent, trx: Db): Promise<void> {
  const data = dataOf(event);
  const reference = typeof data.reference === 'string' ? data.reference : '';
  const refund = /^rf_\d{1,15}$/.test(reference) ? await findRefund(trx, Number(reference.slice(3))) : undefined;
  const payment =
    refund &&
    (await findPayment(trx, { merchantId: refund.merchant_id, livemode: refund.livemode }, refund.payment_id));
  const facts = { eventId: event.body.eventId, source: event.source, connectionId: connectionOf(event), reference };
  if (!refund || !payment || payment.processor_connection_id !== connectionOf(event)) {
    ctx.logger.info(facts, 'refund webhook names no refund of its connection');
    return;
  }
  if (event.body.amount !== refund.amount || event.body.transactionId !== payment.processor_payment_id) {
    ctx.logger.warn(
      { ...facts, amount: event.body.amount, refundAmount: refund.amount },
      'refund webhook does not match the refund it names; not applied',
    );
    return;
  }
  const processorRefundId = event.source === 'adyen' ? data.pspReference : data.refundId;
  await recordRefundOutcome(
    { db: trx, clock: ctx.clock },
    {
      payment,
      refundId: refund.id,
      outcome: {
        refundId: typeof processorRefundId === 'string' ? processorRefundId : null,
        status: event.body.status === 'refunded' ? 'succeeded' : 'failed',
      },
    },
  );
}
