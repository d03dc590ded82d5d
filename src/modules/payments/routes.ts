import type { App } from '../../http/fastify-app.js';
import type { PaymentsContext } from './context.js';
import { actionRoutes } from './action-routes.js';
import { readRoutes } from './read-routes.js';
import { challengeReturnRoutes } from './return-routes.js';
import { submissionRoutes } from './submission-routes.js';

/** The payment routes, by role: submissions, the 3-D Secure return, reads, and follow-up actions. */
export function paymentRoutes(app: App, ctx: PaymentsContext): void {
  submissionRoutes(app, ctx);
  challengeReturnRoutes(app, ctx);
  readRoutes(app, ctx);
  actionRoutes(app, ctx);
}
