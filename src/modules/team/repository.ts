import type { Db } from '../../storage/db.js';
import type { UserRole } from '../merchants/index.js';

/** The merchant's users still on the team, oldest first. */
export function findMembers(db: Db, merchantId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('removed_at', 'is', null)
    .orderBy('id')
    .execute();
}

/** A user on the merchant's team, locked until the caller's transaction ends. */
export function lockMember(db: Db, merchantId: number, userId: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'role', 'created_at'])
    .where('id', '=', userId)
    .where('merchant_id', '=', merchantId)
    .where('removed_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The merchant's owners, locked: two owners demoting or removing each other at once queue up here, so
 * the second sees the first's change and the last owner stays.
 */
export async function lockOwners(db: Db, merchantId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('role', '=', 'owner')
    .where('removed_at', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

export async function updateRole(db: Db, userId: number, role: UserRole): Promise<void> {
  await db.updateTable('users').set({ role }).where('id', '=', userId).execute();
}

/** Off the team: no sign-in, no session (the keys are the api-keys module's to revoke). */
export async function markRemoved(db: Db, userId: number, now: Date): Promise<void> {
  await db.updateTable('users').set({ removed_at: now }).where('id', '=', userId).execute();
  await db.deleteFrom('panel_sessions').where('user_id', '=', userId).execute();
}

export async function insertMember(
  db: Db,
  values: { merchantId: number; email: string; passwordHash: string; role: UserRole },
) {
  return db
    .insertInto('users')
    .values({
      merchant_id: values.merchantId,
      email: values.email,
      password_hash: values.passwordHash,
      role: values.role,
    })
    .returning(['id', 'token_generation'])
    .executeTakeFirstOrThrow();
}

// ---- invitations

/** Invitations neither accepted nor revoked (expired ones too: the panel says so), oldest first. */
export function findOpenInvitations(db: Db, merchantId: number) {
  return db
    .selectFrom('team_invitations as i')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .select(['i.id', 'i.email', 'i.role', 'i.created_at', 'i.expires_at', 'u.email as invited_by_email'])
    .where('i.merchant_id', '=', merchantId)
    .where('i.accepted_at', 'is', null)
    .where('i.revoked_at', 'is', null)
    .orderBy('i.id')
    .execute();
}

/** Revokes the open invitations to this e-mail (a new one replaces them). */
export async function revokeOpenInvitations(db: Db, merchantId: number, email: string, now: Date): Promise<void> {
  await db
    .updateTable('team_invitations')
    .set({ revoked_at: now })
    .where('merchant_id', '=', merchantId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function insertInvitation(
  db: Db,
  values: {
    merchantId: number;
    email: string;
    role: UserRole;
    tokenHash: string;
    tokenNonce: string;
    invitedBy: number;
    createdAt: Date;
    expiresAt: Date;
  },
) {
  return db
    .insertInto('team_invitations')
    .values({
      merchant_id: values.merchantId,
      email: values.email,
      role: values.role,
      token_hash: values.tokenHash,
      token_nonce: values.tokenNonce,
      invited_by: values.invitedBy,
      created_at: values.createdAt,
      expires_at: values.expiresAt,
    })
    .returning(['id', 'email', 'role', 'created_at', 'expires_at'])
    .executeTakeFirstOrThrow();
}

export async function setInvitationNotice(db: Db, invitationId: number, noticeId: number): Promise<void> {
  await db.updateTable('team_invitations').set({ notice_id: noticeId }).where('id', '=', invitationId).execute();
}

/** Revokes one open invitation of the merchant; false when there is none by that id. */
export async function revokeInvitation(db: Db, merchantId: number, invitationId: number, now: Date) {
  const row = await db
    .updateTable('team_invitations')
    .set({ revoked_at: now })
    .where('id', '=', invitationId)
    .where('merchant_id', '=', merchantId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The invitation a link's token names, locked so two acceptances of one link queue up. */
export function lockInvitationByHash(db: Db, tokenHash: string) {
  return db
    .selectFrom('team_invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
}

export async function markAccepted(db: Db, invitationId: number, now: Date): Promise<void> {
  await db.updateTable('team_invitations').set({ accepted_at: now }).where('id', '=', invitationId).execute();
}

/** The invitation an e-mail notice is for (its mail is composed at send time). */
export function findInvitationByNotice(db: Db, noticeId: number) {
  return db.selectFrom('team_invitations').selectAll().where('notice_id', '=', noticeId).executeTakeFirst();
}
