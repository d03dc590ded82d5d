import { operationsOf, type Operation } from '../../proof/fuzz/contract.js';
import type { TestGateway } from '../helpers/gateway.js';
import { card } from '../payments/fixtures.js';

/** A card that pays in the sandbox. */
export const CARD = card('4242424242424242');

/** The operations the gateway publishes: the sweeps below cover every one, so a new route is covered (or fails) at once. */
export async function publishedOperations(gw: TestGateway): Promise<Operation[]> {
  return operationsOf((await gw.call('GET', '/openapi.json')).body);
}

/** The object an operation's path id names: what a foreign caller must not reach. */
export type ObjectKind = 'paymentRequest' | 'customer' | 'payment' | 'event' | 'user';

export function objectKindOf(op: Operation): ObjectKind | undefined {
  const param = op.parameters.find((p) => p.in === 'path')?.name;
  if (!param) return undefined;
  if (param === 'userId') return 'user';
  if (param === 'paymentId') return 'payment';
  if (param === 'eventId') return 'event';
  if (op.path.startsWith('/customers/')) return 'customer';
  return 'paymentRequest';
}

/** A body that passes validation for the operation, so what answers is the access check, not the schema. */
export function validBodyOf(op: Operation): unknown {
  if (op.bodyTypes.length === 0) return undefined;
  if (op.path.startsWith('/payments/h2h/')) return { ...CARD, amount: 10.5, unit: 'EUR' };
  if (op.path.startsWith('/payments/creditCard/')) return CARD;
  if (op.path.startsWith('/payments/wallet/'))
    return { name: CARD.name, email: CARD.email, token: 'approve', wallet: { walletType: 'googlepay' } };
  if (op.path.endsWith('/refunds')) return { amount: 1 };
  if (op.id === 'PATCH /customers/{id}') return { name: 'Changed by someone else' };
  if (op.id === 'POST /customers') return { name: 'New', email: 'new@example.com' };
  if (op.id === 'POST /payment-requests') return { amount: 10.5, currency: 'EUR', reference: 'r' };
  return {};
}

/** The operation's path with every path parameter set to `id` (event ids are spelled evt_<id>). */
export const pathWith = (op: Operation, id: number | string) =>
  op.path.replace(/\{[^}]+\}/g, (param) => (param === '{eventId}' ? `evt_${id}` : String(id)));
