import type { DbContext } from '../../storage/db-context.js';
import { notFound } from '../../errors.js';
import { revokeInvitation as revoke } from './repository.js';

/** An owner takes back an open invitation: its link stops working, its mail (if not sent yet) is not sent. */
export async function revokeInvitation(ctx: DbContext, input: { merchantId: number; invitationId: number }) {
  if (!(await revoke(ctx.db, input.merchantId, input.invitationId, ctx.clock.now()))) {
    throw notFound('open invitation');
  }
  return { invitationId: input.invitationId, revoked: true as const };
}
