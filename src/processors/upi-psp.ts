import { createJsonClient } from './http-client.js';

export interface CollectInput {
  /** The gateway's payment id: the PSP deduplicates on it. */
  reference: string;
  amount: number;
  currency: string;
  upiId: string;
  testHeaders?: Record<string, string>;
}

/**
 * What the PSP said to a collect request. `pending`: sent to the payer's app, the outcome follows by
 * callback; `error`: refused before anything was sent; `timeout`: unknown, the collect expiry settles it.
 */
export type CollectOutcome =
  { kind: 'pending'; processorPaymentId: string } | { kind: 'error'; message: string } | { kind: 'timeout' };

/** The members of the PSP's answer this adapter reads. */
interface PspAnswer {
  id?: string;
  status?: string;
  error?: string;
}

/** The built-in sandbox's UPI PSP (sandbox/upi.ts): collect requests answered `pending`, outcomes by callback. */
export function createUpiPsp(baseUrl: string, timeoutMs: number) {
  const client = createJsonClient(baseUrl, timeoutMs);
  return {
    name: 'upi' as const,
    async collect(input: CollectInput): Promise<CollectOutcome> {
      const { testHeaders, ...body } = input;
      let response;
      try {
        response = await client.post('/upi/v1/collect', body, testHeaders);
      } catch {
        // Time-out or connection lost: the collect may exist; its expiry settles the payment.
        return { kind: 'timeout' };
      }
      const answer = (typeof response.body === 'object' && response.body !== null ? response.body : {}) as PspAnswer;
      if (response.status >= 300 || answer.status !== 'pending' || !answer.id)
        return { kind: 'error', message: String(answer.error ?? answer.status ?? response.status) };
      return { kind: 'pending', processorPaymentId: answer.id };
    },
    close: () => client.close(),
  };
}

export type UpiPsp = ReturnType<typeof createUpiPsp>;
