import { expect } from 'vitest';
import { operationsOf, type Operation } from '../../proof/fuzz/contract.js';
import type { TestGateway } from '../helpers/gateway.js';
import { card, walletPayment } from '../payments/fixtures.js';

/** A card that pays in the sandbox. */
export const CARD = card('4242424242424242');

/** The operations the gateway publishes: the sweeps below cover every one, so a new route is covered (or fails) at once. */
export async function publishedOperations(gw: TestGateway): Promise<Operation[]> {
  return operationsOf((await gw.call('GET', '/openapi.json')).body);
}

/** The object an operation's path id names: what a foreign caller must not reach. */
export type ObjectKind = 'paymentRequest' | 'customer' | 'payment' | 'event' | 'connection' | 'user';

export function objectKindOf(op: Operation): ObjectKind | undefined {
  const param = op.parameters.find((p) => p.in === 'path')?.name;
  if (!param) return undefined;
  if (param === 'userId') return 'user';
  if (param === 'paymentId') return 'payment';
  if (param === 'eventId') return 'event';
  if (param === 'connectionId') return 'connection';
  if (op.path.startsWith('/customers/')) return 'customer';
  return 'paymentRequest';
}

/** One object of each kind an operation's path can name, by id. */
export type Objects = Record<Exclude<ObjectKind, 'user' | 'connection'>, number> & { connection: string };

/**
 * One object of each kind, made with `key` (so its merchant's and mode's): a customer, a payment request,
 * with `withPayment` a card payment only authorized (capture, cancel and refund would all change it), a
 * received test callback, the newest event (the payment's, when there is one; else none: 0), and a processor
 * connection named 'owned' (the sandbox in test mode, Stripe with live credentials in live mode).
 */
export async function ownedObjects(gw: TestGateway, key: string, withPayment: boolean): Promise<Objects> {
  const customer = await gw.call('POST', '/customers', {
    apiKey: key,
    body: { name: 'Owned', email: 'owned@example.com' },
  });
  const request = await gw.call('POST', '/payment-requests', {
    apiKey: key,
    body: { amount: 10.5, currency: 'EUR', reference: 'owned', customerId: customer.body.id },
  });
  expect(request.status, request.text).toBe(200);
  let payment = 0;
  if (withPayment) {
    const pay = await gw.call('POST', `/payments/creditCard/acme/${request.body.paymentRequestId}`, {
      apiKey: key,
      body: { ...CARD, captureDelayHours: 2 },
    });
    expect(pay.body.status, pay.text).toBe('authorized');
    payment = pay.body.paymentId;
  }
  await gw.call('POST', '/callbacks/test/json', { apiKey: key, body: { eventId: 'owned-callback' } });
  const events = await gw.call('GET', '/events?limit=1', { apiKey: key });
  const event = Number(events.body.data[0]?.id.slice('evt_'.length) ?? 0);
  const live = key.startsWith('svc_live_');
  const connection = await gw.call('POST', '/processor-connections', {
    apiKey: key,
    body: {
      processor: live ? 'stripe' : 'sandbox',
      name: 'owned connection',
      credentials: live ? { secretKey: 'sk_live_owned', webhookSecret: 'whsec_owned' } : {},
      slots: ['acme'],
    },
  });
  expect(connection.status, connection.text).toBe(201);
  return {
    customer: customer.body.id,
    paymentRequest: request.body.paymentRequestId,
    payment,
    event,
    connection: connection.body.connectionId,
  };
}

/** A body that passes validation for the operation, so what answers is the access check, not the schema. */
export function validBodyOf(op: Operation): unknown {
  if (op.bodyTypes.length === 0) return undefined;
  if (op.path.startsWith('/payments/h2h/')) return { ...CARD, amount: 10.5, unit: 'EUR' };
  if (op.path.startsWith('/payments/creditCard/')) return CARD;
  if (op.path.startsWith('/payments/wallet/')) return walletPayment('tok_security');
  if (op.path.endsWith('/refunds')) return { amount: 1 };
  if (op.id === 'PATCH /customers/{id}') return { name: 'Changed by someone else' };
  if (op.id === 'POST /customers') return { name: 'New', email: 'new@example.com' };
  if (op.id === 'POST /payment-requests') return { amount: 10.5, currency: 'EUR', reference: 'r' };
  if (op.id === 'PATCH /processor-connections/{connectionId}') return { priority: 3 };
  return {};
}

/** The operation's path with every path parameter set to `id` (event ids are spelled evt_<id>). */
export const pathWith = (op: Operation, id: number | string) =>
  op.path.replace(/\{[^}]+\}/g, (param) => (param === '{eventId}' ? `evt_${id}` : String(id)));
