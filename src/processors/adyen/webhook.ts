import adyen from '@adyen/api-library';
import { AppError } from '../../errors.js';
import type { ProviderCallback } from '../types.js';
import { declineOf } from './refusals.js';
import type { AdyenProviderEvent } from './types.js';

const { hmacValidator } = adyen;

type NotificationItem = InstanceType<typeof adyen.Types.notification.NotificationRequestItem>;

/** What the receiver answers a notification it has taken (Adyen retries anything else). */
export const ADYEN_WEBHOOK_ANSWER = '[accepted]';

/**
 * A standard notification, checked item by item with the SDK's HMAC validator (Adyen signs each
 * NotificationRequestItem with the merchant's HMAC key in `additionalData.hmacSignature`, not the
 * request: the headers carry no signature, and Basic authentication, if the merchant set one, is the
 * receiver's check). One bad item refuses the whole delivery with INVALID_WEBHOOK_SIGNATURE.
 */
export function verifyAdyenWebhook(
  rawBody: string | Buffer,
  _headers: Record<string, string | string[] | undefined>,
  secret: string,
): AdyenProviderEvent[] {
  return verifiedItems(rawBody, secret).map(eventOf);
}

/**
 * The same check, giving the gateway's callback record of each item, so that the callback pipeline
 * (its deduplication by eventId included) carries Adyen's notifications; `eventOfCallback` reads one
 * back. Its status is the outcome (`succeeded`, `failed`, `refunded`, `chargeback`), else the event
 * code in lower case with `_failed` for an unsuccessful one (`refund_failed`, `capture_failed`,
 * `cancellation_failed`, `capture`, …), so the stored record says what happened.
 */
export function verifyAdyenCallbacks(
  rawBody: string | Buffer,
  _headers: Record<string, string | string[] | undefined>,
  secret: string,
): ProviderCallback[] {
  return verifiedItems(rawBody, secret).map((item) => {
    const event = eventOf(item);
    return {
      eventId: event.eventId,
      transactionId: event.processorPaymentId,
      status:
        event.outcome === 'unknown'
          ? `${event.eventCode.toLowerCase()}${event.success ? '' : '_failed'}`
          : event.outcome,
      amount: event.amount,
      currency: event.currency,
      timestamp: item.eventDate ?? '',
      // The item itself (what eventOfCallback reads), and our reference under the name callbacks use.
      providerData: { ...(item as unknown as Record<string, unknown>), reference: event.reference },
    };
  });
}

function verifiedItems(rawBody: string | Buffer, secret: string): NotificationItem[] {
  const items = itemsOf(rawBody);
  const validator = new hmacValidator();
  for (const item of items) {
    if (!signedBy(validator, item, secret)) throw refused('signature', 'The notification signature does not verify.');
  }
  return items;
}

function itemsOf(rawBody: string | Buffer): NotificationItem[] {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString());
  } catch {
    throw refused('malformed', 'The notification is not JSON.');
  }
  const list = (body as { notificationItems?: unknown } | null)?.notificationItems;
  if (!Array.isArray(list) || list.length === 0) throw refused('malformed', 'The notification has no items.');
  return list.map((entry) => {
    const item = (entry as { NotificationRequestItem?: unknown } | null)?.NotificationRequestItem;
    if (!isItem(item)) throw refused('malformed', 'A notification item is incomplete.');
    return item;
  });
}

function signedBy(validator: InstanceType<typeof hmacValidator>, item: NotificationItem, secret: string): boolean {
  try {
    return validator.validateHMAC(item, secret);
  } catch {
    // The validator throws when the item carries no signature at all.
    return false;
  }
}

const refused = (reason: string, message: string) =>
  new AppError('INVALID_WEBHOOK_SIGNATURE', message, { details: { reason } });

function isItem(value: unknown): value is NotificationItem {
  if (typeof value !== 'object' || value === null) return false;
  const item = value as Record<string, unknown>;
  const amount = item.amount as { value?: unknown; currency?: unknown } | undefined;
  return (
    typeof item.eventCode === 'string' &&
    typeof item.pspReference === 'string' &&
    typeof item.success === 'string' &&
    typeof amount?.value === 'number' &&
    typeof amount.currency === 'string'
  );
}

/**
 * One item in the gateway's words. AUTHORISATION settles the payment (its refusal reason mapped to
 * our decline codes); REFUND success is `refunded`, CHARGEBACK `chargeback`. Captures and cancels,
 * and every failed modification, have no ProviderEvent outcome: `unknown`, with `eventCode` and
 * `success` telling what happened. A modification's `processorPaymentId` is the payment's
 * (`originalReference`), its own pspReference is `pspReference`.
 */
export function eventOf(item: NotificationItem): AdyenProviderEvent {
  const success = String(item.success) === 'true';
  const eventCode = String(item.eventCode);
  const reason = item.reason || undefined;
  const base = {
    eventId: `${eventCode}:${item.pspReference}:${String(success)}`,
    eventCode,
    success,
    pspReference: item.pspReference,
    processorPaymentId: item.originalReference || item.pspReference,
    reference: item.merchantReference || undefined,
    amount: item.amount.value ?? 0,
    currency: item.amount.currency ?? '',
    ...(reason ? { reason } : {}),
  };
  switch (eventCode) {
    case 'AUTHORISATION':
      return success
        ? { ...base, outcome: 'succeeded' }
        : { ...base, outcome: 'failed', ...declineOf(undefined, reason) };
    case 'REFUND':
      return { ...base, outcome: success ? 'refunded' : 'unknown' };
    case 'CHARGEBACK':
      return { ...base, outcome: 'chargeback' };
    default:
      return { ...base, outcome: 'unknown' };
  }
}

/**
 * Processor.parseCallback for Adyen: the callback's `providerData` is one NotificationRequestItem
 * that verifyAdyenWebhook has already verified.
 */
export function eventOfCallback(callback: ProviderCallback): AdyenProviderEvent {
  const item = callback.providerData;
  if (isItem(item)) return eventOf(item);
  return {
    eventId: callback.eventId,
    eventCode: callback.status,
    success: false,
    pspReference: callback.transactionId,
    processorPaymentId: callback.transactionId,
    reference: undefined,
    outcome: 'unknown',
    amount: callback.amount,
    currency: callback.currency,
  };
}
