/**
 * The team module: the merchant's users and their roles, invitations by e-mail (a single-use link,
 * stored only as a hash, composed into the mail at send time), role changes and removals.
 */
export { teamRoutes as routes } from './routes.js';
export { invitationMail } from './invitation-mail.js';
export type { TeamInvitationsTable } from './tables.js';
export type { TeamContext } from './context.js';
