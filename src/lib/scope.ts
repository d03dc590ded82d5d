/** One merchant in one mode: test keys see only livemode=false rows, live keys only livemode=true. */
export interface MerchantScope {
  merchantId: number;
  livemode: boolean;
}
