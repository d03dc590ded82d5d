import type { CheckoutTokenVerifier, PanelSessionVerifier } from './http/actors.js';
import type { AuthContext } from './modules/auth/index.js';
import type { CallbacksContext } from './modules/callbacks/index.js';
import type { JobsContext } from './modules/jobs/index.js';
import type { MetricsContext } from './modules/metrics/index.js';
import type { NotificationsContext } from './modules/notifications/index.js';
import type { PanelSessionsContext } from './modules/panel-sessions/index.js';
import type { PaymentRequestsContext } from './modules/payment-requests/index.js';
import type { PaymentsContext } from './modules/payments/index.js';
import type { ProcessorConnectionsContext } from './modules/processor-connections/index.js';
import type { SystemContext } from './modules/system/index.js';
import type { TeamContext } from './modules/team/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The wiring built at start; the server and tests reach jobs and storage through it. */
    ctx: AppContext;
  }
}

/**
 * Everything the modules need, built once at start by app.ts and passed down (no container). Each module
 * declares the slice it uses in its own context.ts; this is their union, plus what only the wiring hands
 * to http/. It sits above the modules: no module imports it, so a module's actions, routes and jobs can
 * only reach what its own context names. Domain actions take `verb(ctx, input)` with a slice of it;
 * `db` may be a transaction the caller owns (storage/db-context.ts `inTransaction`).
 */
export interface AppContext
  extends
    AuthContext,
    CallbacksContext,
    JobsContext,
    MetricsContext,
    NotificationsContext,
    PanelSessionsContext,
    PaymentRequestsContext,
    PaymentsContext,
    ProcessorConnectionsContext,
    SystemContext,
    TeamContext {
  /** Checkout session tokens are checked through this (modules/checkout-sessions). */
  checkoutVerifier: CheckoutTokenVerifier;
  /** The control panel's session cookie is checked through this (modules/panel-sessions). */
  panelSessions: PanelSessionVerifier;
  /** This process among the running gateway instances (modules/instances): holder of its idempotency claims. */
  instanceId: string;
}
