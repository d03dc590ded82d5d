import { channel, subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterCommit } from '../../storage/after-commit.js';
import type { Db } from '../../storage/db.js';
import type { PaymentStatus } from './tables.js';
import type { PaymentRow } from './rows.js';

/**
 * Payments moved into a status by this process, announced on a diagnostics channel once the move has
 * committed (never one rolled back): the metrics count them (wired in app.ts), and the payments know
 * nothing of metrics. Per process, like undici's channels the processor-call timings come from.
 */
export interface PaymentStatusChange {
  status: PaymentStatus;
  processor: string;
  livemode: boolean;
}

const CHANNEL = 'svc:payments:status';
const statusChanges = channel(CHANNEL);

/** Called with the row a state-machine move wrote through `db` (which may be the caller's transaction). */
export function announceStatusChange(db: Db, payment: PaymentRow): void {
  const change: PaymentStatusChange = {
    status: payment.status,
    processor: payment.processor,
    livemode: payment.livemode,
  };
  afterCommit(db, () => statusChanges.publish(change));
}

/** Calls `listener` for every committed move of this process; returns the function that stops it. */
export function watchStatusChanges(listener: (change: PaymentStatusChange) => void): () => void {
  const onMessage = (message: unknown) => listener(message as PaymentStatusChange);
  subscribe(CHANNEL, onMessage);
  return () => {
    unsubscribe(CHANNEL, onMessage);
  };
}
