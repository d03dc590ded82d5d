import { inTransaction } from '../../storage/db-context.js';
import type { TeamContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { inAuditedTransaction } from '../audit/index.js';
import { panelSessionOf } from '../../http/credentials.js';
import { assertSameOrigin } from '../../http/panel-cookie.js';
import type { RoutePolicy } from '../../http/route-policy.js';
import type { UserRole } from '../merchants/index.js';
import { awaitKeyCacheAcknowledgements } from '../api-keys/index.js';
import { PanelSessionView, sessionAnswer, openPanelSession } from '../panel-sessions/index.js';
import { acceptInvitation } from './accept-invitation.js';
import { changeRole } from './change-role.js';
import { inviteTeammate } from './invite-teammate.js';
import { listTeam } from './list-team.js';
import { removeMember } from './remove-member.js';
import { revokeInvitation } from './revoke-invitation.js';
import {
  AcceptBody,
  Invitation,
  InvitationParams,
  InvitationRevoked,
  InviteBody,
  MemberParams,
  MemberRemoved,
  RoleBody,
  RoleChanged,
  Team,
} from './schemas.js';

const tags = ['Control panel'];
/** Inviting, revoking, changing roles and removing are the owners' (decisions.md "Team"). */
const OWNERS_ONLY: RoutePolicy<UserRole> = { auth: 'session', roles: ['owner'] };

const invitationPath = (invitationId: number) => `/team/invitations/${invitationId}`;

/**
 * A change that revoked keys is answered only once no instance's key cache can still accept them, as a
 * rotation is (after the commit: the wait's barrier must follow the revocation).
 */
async function answeredWhenKeysRefused<T extends { apiKeysRevoked: number }>(ctx: TeamContext, changed: T): Promise<T> {
  if (changed.apiKeysRevoked > 0) await awaitKeyCacheAcknowledgements(ctx);
  return changed;
}

/**
 * The merchant's team (docs/decisions.md "Team"): every role reads it; owners invite, revoke, change
 * roles and remove (OWNERS_ONLY; audited through the audit module's inAuditedTransaction).
 * Accepting an invitation is public: its link's token is the credential.
 */
export function teamRoutes(app: App, ctx: TeamContext): void {
  app.get(
    '/team',
    {
      schema: {
        operationId: 'getTeam',
        summary: "The merchant's users and open invitations",
        tags,
        response: { 200: Team },
      },
      config: { auth: 'session' },
    },
    async (request) => listTeam(ctx, { merchantId: panelSessionOf(request).merchantId }),
  );

  app.post(
    '/team/invitations',
    {
      schema: {
        operationId: 'inviteTeamMember',
        summary: 'Invite someone by e-mail with a role (owners only); the link is sent to them alone',
        tags,
        body: InviteBody,
        response: { 201: Invitation },
      },
      config: OWNERS_ONLY,
    },
    async (request, reply) => {
      const session = panelSessionOf(request);
      const invitation = await inAuditedTransaction(
        ctx,
        request,
        'team.invited',
        (trx) =>
          inviteTeammate(trx, {
            merchantId: session.merchantId,
            merchantName: session.merchantName,
            invitedBy: { userId: session.userId, email: session.email },
            ...request.body,
          }),
        (invited) => invitationPath(invited.invitationId),
      );
      reply.code(201).header('Location', invitationPath(invitation.invitationId));
      return invitation;
    },
  );

  app.delete(
    '/team/invitations/:invitationId',
    {
      schema: {
        operationId: 'revokeInvitation',
        summary: 'Revoke an open invitation (owners only)',
        tags,
        params: InvitationParams,
        response: { 200: InvitationRevoked },
      },
      config: OWNERS_ONLY,
    },
    async (request) =>
      inAuditedTransaction(ctx, request, 'team.invitation_revoked', (trx) =>
        revokeInvitation(trx, {
          merchantId: panelSessionOf(request).merchantId,
          invitationId: request.params.invitationId,
        }),
      ),
  );

  app.patch(
    '/team/members/:userId',
    {
      schema: {
        operationId: 'updateTeamMember',
        summary:
          "Change a user's role (owners only; never the last owner's); a demotion to viewer revokes their API keys",
        tags,
        params: MemberParams,
        body: RoleBody,
        response: { 200: RoleChanged },
      },
      config: OWNERS_ONLY,
    },
    async (request) => {
      const { merchantId } = panelSessionOf(request);
      const changed = await inAuditedTransaction(ctx, request, 'team.role_changed', (trx) =>
        changeRole(trx, { merchantId, userId: request.params.userId, role: request.body.role }),
      );
      return answeredWhenKeysRefused(ctx, changed);
    },
  );

  app.delete(
    '/team/members/:userId',
    {
      schema: {
        operationId: 'removeTeamMember',
        summary: 'Remove a user from the team (owners only; never the last owner): sessions end, keys are revoked',
        tags,
        params: MemberParams,
        response: { 200: MemberRemoved },
      },
      config: { ...OWNERS_ONLY, answers: [409] },
    },
    async (request) => {
      const { merchantId } = panelSessionOf(request);
      const removed = await inAuditedTransaction(ctx, request, 'team.member_removed', (trx) =>
        removeMember(trx, { merchantId, userId: request.params.userId }),
      );
      return answeredWhenKeysRefused(ctx, removed);
    },
  );

  app.post(
    '/team/invitations/accept',
    {
      schema: {
        operationId: 'acceptInvitation',
        summary: 'Accept an invitation: choose a password, join the team with the invited role, and be signed in',
        tags,
        body: AcceptBody,
        response: { 200: PanelSessionView },
      },
      config: { auth: 'none', signIn: true, answers: [409, 410] },
    },
    async (request, reply) => {
      // Like the sign-in: no acceptance from another site's page (it would sign the browser in).
      assertSameOrigin(request, ctx.config);
      // The password was just hashed: the new member is signed in without checking it again (argon2 twice).
      const started = await inTransaction(ctx, async (trx) =>
        openPanelSession({ ...trx, secrets: ctx.secrets }, await acceptInvitation(trx, request.body)),
      );
      return sessionAnswer(ctx, reply, started);
    },
  );
}
