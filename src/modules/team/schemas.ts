import { Type } from '@sinclair/typebox';
import { Id, nullable } from '../../lib/schema.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('developer'), Type.Literal('viewer')], {
  description: 'owner: everything, the team and the audit log included; developer: all but those; viewer: reads only',
});

export const TeamMember = Type.Object({
  userId: Type.Integer(),
  email: Type.String(),
  role: Role,
  since: Type.String({ format: 'date-time', description: 'When the user joined' }),
});

export const Invitation = Type.Object({
  invitationId: Type.Integer(),
  email: Type.String(),
  role: Role,
  invitedBy: nullable(Type.String({ description: 'The e-mail of the owner who invited' })),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'The link works until then (7 days), once' }),
  expired: Type.Boolean(),
});

export const Team = Type.Object({
  members: Type.Array(TeamMember),
  invitations: Type.Array(Invitation, { description: 'Neither accepted nor revoked yet, expired ones included' }),
});

export const InviteBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, description: "The invitee's e-mail address" }),
  role: Role,
});

export const InvitationParams = Type.Object({ invitationId: Id('Invitation id') });
export const MemberParams = Type.Object({ userId: Id('User id') });
export const RoleBody = Type.Object({ role: Role });

const ApiKeysRevoked = Type.Integer({
  minimum: 0,
  description:
    "How many of the user's API keys this change revoked (a viewer or a removed user holds none): " +
    'calls with them answer 401 INVALID_API_KEY on every instance from this answer on',
});

/** A role change's answer: the member as they are now, and the keys the change took from them. */
export const RoleChanged = Type.Object({ ...TeamMember.properties, apiKeysRevoked: ApiKeysRevoked });

export const InvitationRevoked = Type.Object({ invitationId: Type.Integer(), revoked: Type.Literal(true) });
export const MemberRemoved = Type.Object({
  userId: Type.Integer(),
  removed: Type.Literal(true),
  apiKeysRevoked: ApiKeysRevoked,
});

export const AcceptBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 256, description: "The token of the e-mail's link" }),
  password: Type.String({
    minLength: 1,
    maxLength: 1024,
    description: 'The password to sign in with (12 characters or more)',
  }),
});
