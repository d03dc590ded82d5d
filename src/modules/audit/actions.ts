import { Type, type Static } from '@sinclair/typebox';

/** The sensitive actions the merchant's audit log records, whichever credential made them. */
export const AuditAction = Type.Union(
  [
    Type.Literal('api_key.rotated'),
    Type.Literal('payment.refunded'),
    Type.Literal('settings.updated'),
    Type.Literal('webhook_secret.rotated'),
    Type.Literal('team.invited'),
    Type.Literal('team.invitation_revoked'),
    Type.Literal('team.role_changed'),
    Type.Literal('team.member_removed'),
    Type.Literal('user.password_changed'),
    Type.Literal('job.retried'),
    Type.Literal('processor_connection.created'),
    Type.Literal('processor_connection.updated'),
    Type.Literal('processor_connection.deleted'),
  ],
  { description: 'The sensitive action' },
);
export type AuditAction = Static<typeof AuditAction>;
