import type { FuzzTarget } from '../../proof/fuzz/world.js';
import { invitationToken } from '../../src/modules/team/invitation-token.js';
import type { TestGateway } from '../helpers/gateway.js';
import { teammate } from '../panel/fixtures.js';

/** The fuzzer's view of a test gateway: accounts made through actions, and what the mailbox would show. */
export function fuzzTarget(gw: TestGateway): FuzzTarget {
  return {
    url: gw.url,
    callbackSecret: gw.gateway.app.ctx.secrets.callbackSigningSecret,
    merchant: () => gw.merchant(),
    teammate: async (merchant) => (await teammate(gw, merchant, 'developer')).userId,
    // The token the invitation's e-mail carries (there is no mail server here): derived as the mail job does.
    invitationToken: async (invitationId) => {
      const row = await gw.db
        .selectFrom('team_invitations')
        .select('token_nonce')
        .where('id', '=', invitationId)
        .executeTakeFirstOrThrow();
      return invitationToken(gw.gateway.app.ctx.secrets.jwtSecret, row.token_nonce);
    },
  };
}
