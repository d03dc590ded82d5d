import type { Db } from '../../storage/db.js';
import { paymentNotifyUrls, requestNotifyUrls } from './repository.js';

type Payload = Record<string, unknown>;

const numberAt = (payload: Payload, member: string): number | undefined =>
  typeof payload[member] === 'number' ? payload[member] : undefined;

/** The payment an event is about (payment and refund events carry paymentId), if any. */
export const paymentIdOf = (payload: Payload) => numberAt(payload, 'paymentId');

/**
 * Where the events' own objects want them, ahead of the merchant's default URL: a payment's notifyUrl
 * (which it inherited from its request when it began, unless the merchant's server named one), else,
 * for an event about a payment request itself, the request's notifyUrl. Two reads at most per batch.
 */
export async function ownNotifyUrls(db: Db, payloads: Payload[]): Promise<(payload: Payload) => string | undefined> {
  const defined = (id: number | undefined): id is number => id !== undefined;
  const requestIdOf = (payload: Payload) =>
    paymentIdOf(payload) === undefined ? numberAt(payload, 'paymentRequestId') : undefined;
  const ofPayments = await paymentNotifyUrls(db, payloads.map(paymentIdOf).filter(defined));
  const ofRequests = await requestNotifyUrls(db, payloads.map(requestIdOf).filter(defined));
  return (payload) => {
    const paymentId = paymentIdOf(payload);
    if (paymentId !== undefined) return ofPayments.get(paymentId);
    const requestId = requestIdOf(payload);
    return requestId === undefined ? undefined : ofRequests.get(requestId);
  };
}
