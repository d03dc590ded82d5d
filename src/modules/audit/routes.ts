import { Type } from '@sinclair/typebox';
import type { DbContext } from '../../storage/db-context.js';
import type { App } from '../../http/fastify-app.js';
import { AppError } from '../../errors.js';
import { Page, PageQuery } from '../../lib/pagination.js';
import { nullable } from '../../lib/schema.js';
import { AuditAction } from './actions.js';
import { listAudit } from './list-audit.js';

const AuditEntry = Type.Object({
  action: AuditAction,
  target: Type.String({ description: 'The path acted on' }),
  mode: nullable(Type.Union([Type.Literal('test'), Type.Literal('live')])),
  by: nullable(Type.String({ description: 'The e-mail of the user who acted (their key, token or session)' })),
  requestId: Type.String(),
  at: Type.String({ format: 'date-time' }),
});

/** The audit log, for the merchant's owners in the control panel. */
export function auditRoutes(app: App, ctx: DbContext): void {
  app.get(
    '/audit-log',
    {
      schema: {
        operationId: 'listAuditEntries',
        summary: 'Sensitive actions of the merchant (owners only), newest first',
        tags: ['Control panel'],
        querystring: Type.Object(PageQuery),
        response: { 200: Page(AuditEntry) },
      },
      config: { auth: 'session' },
    },
    async (request) => {
      const actor = request.actor;
      if (actor?.kind !== 'panel' || actor.role !== 'owner') {
        throw new AppError('INSUFFICIENT_PERMISSIONS', 'Only an owner can read the audit log');
      }
      return listAudit(ctx, { merchantId: actor.merchantId, ...request.query });
    },
  );
}
