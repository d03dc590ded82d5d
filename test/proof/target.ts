import type { FuzzTarget } from '../../proof/fuzz/world.js';
import { linkToken } from '../../src/lib/link-token.js';
import { LINK_KINDS, sendAccountLink } from '../../src/modules/auth/account-links.js';
import { invitationToken } from '../../src/modules/team/invitation-token.js';
import { PASSWORD, type TestGateway } from '../helpers/gateway.js';
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
    teammateCredentials: async (merchant) => ({
      email: (await teammate(gw, merchant, 'developer')).email,
      password: PASSWORD,
    }),
    // What the gateway sends on "forgot password" (or to a right password on a guarded account), and the
    // token its e-mail carries, derived as the mail job does.
    accountLinkToken: async (merchant, kind) => {
      const user = await teammate(gw, merchant, 'developer');
      const { secrets } = gw.gateway.app.ctx;
      await sendAccountLink(
        { db: gw.db, clock: gw.clock, secrets },
        { kind, user: { id: user.userId, merchant_id: merchant.merchantId, email: user.email } },
      );
      const row = await gw.db
        .selectFrom('account_links')
        .select('token_nonce')
        .where('user_id', '=', user.userId)
        .executeTakeFirstOrThrow();
      return linkToken(secrets.jwtSecret, LINK_KINDS[kind], row.token_nonce);
    },
    // Written as the job loop leaves a job whose attempts ran out (the expiry of a request that is not there).
    failedJob: async (merchant) => {
      const key = `payment_request.expire:fuzz-${merchant.merchantId}-${Math.random()}`;
      const row = await gw.db
        .insertInto('jobs')
        .values({
          kind: 'payment_request.expire',
          merchant_id: merchant.merchantId,
          payload: JSON.stringify({ paymentRequestId: 0, merchantId: merchant.merchantId }),
          dedupe_key: key,
          run_at: gw.clock.now(),
          attempts: 10,
          max_attempts: 10,
          last_error: 'payment request 0 not found',
          failed_at: gw.clock.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
  };
}
