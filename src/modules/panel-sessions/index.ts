/** The panel-sessions module: the control panel's cookie session (sign-in, CSRF token, sign-out). */
export { panelSessionRoutes as routes } from './routes.js';
export { panelSessionVerifier } from './verifier.js';
export { openPanelSession, startPanelSession } from './start-session.js';
export { sessionAnswer } from './session-answer.js';
export { PanelSessionView } from './schemas.js';
export type { PanelSessionsTable } from './tables.js';
export type { PanelSessionsContext } from './context.js';
