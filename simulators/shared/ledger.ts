/** What a simulator did with money, per payment: how a test proves "charged at most once". */
export interface LedgerEntry {
  /** The processor's id (Stripe PaymentIntent id, Adyen pspReference). */
  id: string;
  /** The merchant's reference (Adyen `reference`; Stripe `metadata[reference]`, else `description`). */
  reference?: string;
  amount: number;
  currency: string;
  status: string;
  /** Amounts in minor units. */
  authorised: number;
  captured: number;
  refunded: number;
}

/** Sums of the entries for one merchant reference. */
export function totalsFor(entries: LedgerEntry[], reference: string) {
  const mine = entries.filter((e) => e.reference === reference);
  return {
    payments: mine.length,
    authorised: mine.reduce((sum, e) => sum + e.authorised, 0),
    captured: mine.reduce((sum, e) => sum + e.captured, 0),
    refunded: mine.reduce((sum, e) => sum + e.refunded, 0),
  };
}
