import type { FastifyRequest } from 'fastify';
import { type DbContext, inTransaction } from '../../storage/db-context.js';
import type { AuditAction } from './actions.js';
import { recordAudit } from './record-audit.js';
import type { AuditEntry } from './repository.js';

/**
 * The audit entry of the sensitive action this request makes: who (API key, bearer token or panel
 * session), in which mode, on what (`target`: the request's path unless it created something, then
 * the new object's). It is written in the transaction that makes the change (`inAuditedTransaction`,
 * or the refund's own), so the two commit together or not at all: a client that saw the success finds
 * the entry, no crash keeps a change without it, and a change whose entry cannot be written is not
 * made. A replayed idempotent answer runs no route, so writes no entry.
 */
export function auditEntryOf(
  request: FastifyRequest,
  action: AuditAction,
  target: string = request.originalUrl.split('?')[0],
): Omit<AuditEntry, 'at'> {
  const actor = request.actor;
  if (!actor || actor.kind === 'checkout') throw new Error(`${action} needs a merchant's credential`);
  const mode = 'mode' in actor ? actor.mode : (request.query as { mode?: string }).mode === 'live' ? 'live' : 'test';
  return {
    merchantId: actor.merchantId,
    userId: actor.userId,
    livemode: mode === 'live',
    action,
    target,
    requestId: request.id,
  };
}

/**
 * Runs the route's change in a transaction that also writes its audit entry. `targetOf` names what a
 * creation made (the new object's path); otherwise the target is the request's path.
 */
export function inAuditedTransaction<C extends DbContext, T>(
  ctx: C,
  request: FastifyRequest,
  action: AuditAction,
  change: (trx: C) => Promise<T>,
  targetOf?: (result: T) => string,
): Promise<T> {
  return inTransaction(ctx, async (trx) => {
    const result = await change(trx);
    await recordAudit(trx, auditEntryOf(request, action, targetOf?.(result)));
    return result;
  });
}
