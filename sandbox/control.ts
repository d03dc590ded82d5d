import { Type } from '@sinclair/typebox';
import type { SandboxApp, SandboxContext } from './context.js';

const TransactionParams = Type.Object({ transactionId: Type.String({ maxLength: 100 }) });
const CallbackFilter = Type.Object({ transactionId: Type.Optional(Type.String({ maxLength: 100 })) });

/** Test controls (sandbox only): what was sent, and re-sending it. */
export function controlRoutes(app: SandboxApp, ctx: SandboxContext): void {
  /** Every callback sent so far, oldest first (`?transactionId=` narrows it to one transaction). */
  app.get('/control/callbacks', { schema: { querystring: CallbackFilter } }, async (request) => {
    const { transactionId } = request.query;
    return ctx.callbacks.records().filter((record) => !transactionId || record.body.transactionId === transactionId);
  });

  /** Re-sends the last callback of a transaction (same eventId); answers after the first attempt. */
  app.post('/control/callbacks/:transactionId/resend', { schema: { params: TransactionParams } }, async (request) =>
    ctx.callbacks.resend(request.params.transactionId),
  );
}
