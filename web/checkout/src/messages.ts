/**
 * Messages to the page that embeds the checkout (embed.js), sent to its exact origin only. They say
 * what happened to the payment and never carry card data.
 */
export type MessageType = 'ready' | 'resize' | 'payment.succeeded' | 'payment.failed' | 'expired';

export interface PaymentFields {
  paymentRequestId?: number;
  paymentId?: number;
  status?: string;
  height?: number;
}

/**
 * The embedding page's origin: the `origin` parameter embed.js sets, when the browser confirms it
 * (location.ancestorOrigins, where supported). Null when not framed or when the claim is false.
 */
export function parentOriginOf(claimed: string | null): string | null {
  if (window.parent === window) return null;
  const actual = window.location.ancestorOrigins?.[0];
  if (actual) return !claimed || claimed === actual ? actual : null;
  return claimed;
}

export function messenger(parentOrigin: string | null) {
  return (type: MessageType, fields: PaymentFields = {}) => {
    if (!parentOrigin) return;
    window.parent.postMessage({ source: 'svc-checkout', type, ...fields }, parentOrigin);
  };
}
