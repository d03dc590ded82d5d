import type { PaymentsContext } from './context.js';
import type { TypedCard } from '../cards/index.js';
import type { KeyMode } from '../api-keys/index.js';
import type { ThreeDsRecord } from './tables.js';
import type { CardRow, PaymentRow } from './repository.js';
import type { PaymentOptions, SubmittedPayer } from './schemas.js';

/** What the payment actions use of the context; `db` may be the caller's transaction. */
export type PaymentContext = Pick<
  PaymentsContext,
  'db' | 'clock' | 'vault' | 'processors' | 'connectors' | 'circuits' | 'connectionHealth' | 'config' | 'secrets'
>;

export type CardSource = ({ kind: 'card' } & TypedCard) | { kind: 'token'; token: string };

export interface CardPaymentInput {
  merchantId: number;
  mode: KeyMode;
  paymentRequestId: number;
  /** A processor name, or undefined for the merchant's default (h2h). */
  processor: string | undefined;
  /** h2h only: one new attempt on the other processor after a retryable processor error. */
  failover: boolean;
  source: CardSource;
  payer: SubmittedPayer;
  /** h2h variants carry amount and unit, which must match the payment request. */
  expected?: { amount: number; unit: string };
  /** Null: the payment request's (merchant-options.ts). The payment row holds the one that applies. */
  captureDelayHours: number | null;
  is3ds: boolean;
  isSandbox?: boolean;
  options: PaymentOptions;
  /** Sandbox test controls forwarded to the sandbox network (test mode only). */
  testHeaders?: Record<string, string>;
  /** The idempotency claim this submission runs under, and what an interrupted earlier run of it committed. */
  recoveryPoint?: RecoveryPoint;
}

export interface RecoveryPoint {
  key: string;
  token: string;
  resume?: { paymentId: number; cardToken: string | null };
}

export interface CardPaymentResult {
  payment: PaymentRow;
  /** None for UPI. */
  card: CardRow | undefined;
  /** Shown once, when the card was accepted (not declined). */
  cardToken: string | null;
}

/** What a processor told us about an authorization, from any channel (answer, callback, status query). */
export type Settlement = (
  | { kind: 'approved'; processorPaymentId: string | null; captured: boolean }
  | { kind: 'declined'; processorPaymentId: string | null; declineCode: string; declineReason: string }
  | {
      kind: 'failed';
      processorPaymentId: string | null;
      failureCode: string;
      declineReason?: string;
      /** What the payment's error names beyond its code (decisions.md "Error bodies"). */
      details?: Record<string, unknown>;
    }
  /**
   * The payer must act: a 3-D Secure page, a UPI intent's payer page (with its `upi://pay` link), or
   * nothing to open (a UPI collect in the payer's app).
   */
  | { kind: 'challenge'; processorPaymentId: string; challengeUrl: string | null; upiIntentUrl?: string | null }
  | { kind: 'pending'; processorPaymentId: string | null }
) & {
  /** The 3-D Secure outcome, when the payer was authenticated on the way (authentication value sealed). */
  threeDs?: ThreeDsRecord;
};

/**
 * A UPI payment: a collect request to the payer's UPI id, answered in the payer's app; or an intent,
 * a `upi://pay` link the payer scans or opens (no UPI id needed).
 */
export type UpiPaymentInput = Pick<
  CardPaymentInput,
  'merchantId' | 'mode' | 'paymentRequestId' | 'payer' | 'isSandbox' | 'options' | 'testHeaders' | 'recoveryPoint'
> & { expected: { amount: number; unit: string } } & (
    { upiFlow: 'collect'; upiId: string } | { upiFlow: 'intent'; upiId?: string }
  );

/** A wallet payment: the wallet's payment token, authorized by the wallet processor like a card. */
export type WalletPaymentInput = Pick<
  CardPaymentInput,
  | 'merchantId'
  | 'mode'
  | 'paymentRequestId'
  | 'payer'
  | 'is3ds'
  | 'isSandbox'
  | 'options'
  | 'testHeaders'
  | 'recoveryPoint'
  | 'captureDelayHours'
> & { token: string; walletType: 'googlepay' | 'applepay' };
