import { AppError } from '../../errors.js';
import type { PaymentAtProcessor, Processor } from '../../processors/types.js';
import type { KeyMode } from '../api-keys/index.js';
import { connectionById, connectionsFor, type ConnectionSlot } from '../processor-connections/index.js';
import type { PaymentRow } from './repository.js';
import type { PaymentContext } from './types.js';

/** Where one authorization attempt goes. */
export interface Route {
  /** What the payment records as its processor; undefined: the merchant's default sandbox processor. */
  processorName: string | undefined;
  /** The merchant's connection; null for the built-in sandbox processor of the path. */
  connectionId: string | null;
  /** A real processor's connector; undefined: the sandbox processor the payment names. */
  connector?: Processor;
  /**
   * The circuit guarding the route: a real processor's connection's. The built-in sandbox has none:
   * its test cards play one payment's failure, not an outage to route around.
   */
  circuit?: string;
}

/** The slot a card submission is routed by: its named card path, else host-to-host (and the hosted checkout). */
export const slotOf = (processor: string | undefined): ConnectionSlot =>
  processor === 'acme' || processor === 'globex' ? processor : 'h2h';

/**
 * The merchant's connections for the slot in the key's mode, highest priority first, as routes. None:
 * test mode keeps the built-in sandbox processors; live mode refuses, since only a live connection
 * may move real money (never the sandbox).
 */
export async function connectionRoutes(
  ctx: PaymentContext,
  input: { merchantId: number; mode: KeyMode; slot: ConnectionSlot },
): Promise<Route[]> {
  const connections = await connectionsFor(ctx, input);
  if (connections.length === 0 && input.mode === 'live') throw noLiveConnection(input.slot);
  return connections.map((connection) =>
    connection.processor === 'sandbox'
      ? { processorName: sandboxNameOf(input.slot), connectionId: connection.connectionId }
      : {
          processorName: connection.processor,
          connectionId: connection.connectionId,
          connector: ctx.connectors.connectorFor(connection),
          circuit: connection.connectionId,
        },
  );
}

/** A sandbox connection plays the sandbox processor of its path; on h2h, the merchant's default one. */
const sandboxNameOf = (slot: ConnectionSlot): string | undefined => (slot === 'h2h' ? undefined : slot);

/**
 * The processor a payment's follow-ups (capture, void, refund, status, 3-D Secure return, callbacks)
 * go to: the connector of the connection it went through, or the built-in sandbox processor it names.
 * Undefined when its connection has been removed since.
 */
export async function processorOf(
  ctx: Pick<PaymentContext, 'db' | 'vault' | 'connectionHealth' | 'processors' | 'connectors'>,
  payment: Pick<PaymentRow, 'processor' | 'processor_connection_id'>,
): Promise<Processor | undefined> {
  const sandbox = ctx.processors.get(payment.processor);
  if (sandbox || payment.processor_connection_id === null) return sandbox;
  const connection = await connectionById(ctx, payment.processor_connection_id);
  return connection && connection.processor !== 'sandbox' ? ctx.connectors.connectorFor(connection) : undefined;
}

/** The payment as a follow-up names it to its processor. */
export const atProcessor = (payment: PaymentRow): PaymentAtProcessor => ({
  processorPaymentId: payment.processor_payment_id!,
  reference: `pay_${payment.id}`,
  currency: payment.currency,
});

/** A follow-up on a payment whose processor is no longer reachable through the merchant's connections. */
export const connectionGone = (payment: PaymentRow) =>
  new AppError(
    'PROCESSOR_UNAVAILABLE',
    `The processor connection ${payment.processor_connection_id} this payment went through has been removed; nothing was changed`,
    { details: { connectionId: payment.processor_connection_id } },
  );

const noLiveConnection = (slot: ConnectionSlot) =>
  new AppError(
    'INSUFFICIENT_PERMISSIONS',
    `No live processor connection serves ${slot === 'h2h' ? 'host-to-host and checkout card payments' : `the ${slot} card path`}: connect one (POST /processor-connections) with live credentials; live payments never go to the sandbox`,
    { details: { reason: 'no_live_connection', slot } },
  );

/** Every connection of the path has its circuit open: nothing was created, the payer may retry later. */
export const everyCircuitOpen = (slot: ConnectionSlot) =>
  new AppError(
    'PROCESSOR_UNAVAILABLE',
    'Every processor connection serving this payment path is failing and is skipped for a short while; nothing was charged, try again shortly',
    { details: { reason: 'circuit_open', slot } },
  );
