import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { recordAudit } from '../modules/audit/index.js';

/**
 * The sensitive actions written to the merchant's audit log, by route: whichever credential made them
 * (API key, bearer token or panel session), once they succeeded. Written before the answer leaves
 * (onSend), so a client that saw the success finds the entry.
 */
const AUDITED_ROUTES: Record<string, string> = {
  'PUT /users/:userId/apikey': 'api_key.rotated',
  'POST /payments/:paymentId/refunds': 'payment.refunded',
  'PATCH /settings': 'settings.updated',
  'POST /settings/webhook-secret': 'webhook_secret.rotated',
  'POST /team/invitations': 'team.invited',
  'DELETE /team/invitations/:invitationId': 'team.invitation_revoked',
  'PATCH /team/members/:userId': 'team.role_changed',
  'DELETE /team/members/:userId': 'team.member_removed',
};

export function auditSensitiveActions(ctx: Pick<AppContext, 'db' | 'clock'>) {
  return async <T>(request: FastifyRequest, reply: FastifyReply, payload: T): Promise<T> => {
    const action = AUDITED_ROUTES[`${request.method} ${request.routeOptions.url}`];
    const actor = request.actor;
    if (!action || !actor || actor.kind === 'checkout' || reply.statusCode >= 300) return payload;
    // A replayed idempotent answer is not a second action.
    if (reply.getHeader('idempotent-replayed') === 'true') return payload;
    const mode = 'mode' in actor ? actor.mode : (request.query as { mode?: string }).mode === 'live' ? 'live' : 'test';
    try {
      await recordAudit(ctx, {
        merchantId: actor.merchantId,
        userId: actor.userId,
        livemode: mode === 'live',
        action,
        // A creation names what it made (Location: the new invitation), not the collection it posted to.
        target: String(reply.getHeader('location') ?? request.originalUrl.split('?')[0]),
        requestId: request.id,
      });
    } catch (error) {
      request.log.error({ err: error, action }, 'audit entry not written');
    }
    return payload;
  };
}
