/** Sign-in state (e-mailed links, failed sign-ins, lock-outs) belongs to the auth module, which alone uses it. */
import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../storage/schema.js';

export type AccountLinkKind = 'password_reset' | 'sign_in';

/** A single-use e-mailed link of a user; the token only as a hash (modules/auth). */
export interface AccountLinksTable {
  id: Generated<number>;
  user_id: number;
  merchant_id: number;
  kind: AccountLinkKind;
  token_hash: string;
  /** Random; with the gateway's secret it gives the token back when the e-mail is sent (not the token). */
  token_nonce: string;
  notice_id: number | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** Used, or ended by a password change or reset. */
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** Consecutive failed sign-ins of one typed e-mail from one client address. */
export interface LoginFailuresTable {
  /** Lower-cased e-mail as typed: tracked whether or not an account exists, so locking reveals nothing. */
  email: string;
  /** The client address (the request's IP, after TRUSTED_PROXIES). */
  address: string;
  failures: number;
  locked_until: Timestamp | null;
  updated_at: Timestamp;
}

/** Failed sign-ins of one typed e-mail from every address, in windows: the account-wide safety net. */
export interface SignInGuardsTable {
  email: string;
  failures: number;
  window_started_at: Timestamp;
  /** Until then a right password alone does not sign in: it gets an e-mailed sign-in link. */
  guarded_until: Timestamp | null;
  /** The last lock-out notice to the account's merchant: at most one per lock period. */
  noticed_at: Timestamp | null;
}

declare module '../../storage/schema.js' {
  interface Database {
    account_links: AccountLinksTable;
    login_failures: LoginFailuresTable;
    sign_in_guards: SignInGuardsTable;
  }
}
