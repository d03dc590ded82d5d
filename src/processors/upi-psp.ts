import { createJsonClient } from './http-client.js';

interface UpiRequestInput {
  /** The gateway's payment id: the PSP deduplicates on it. */
  reference: string;
  amount: number;
  currency: string;
  testHeaders?: Record<string, string>;
}

export type CollectInput = UpiRequestInput & { upiId: string };
export type IntentInput = UpiRequestInput;

/**
 * What the PSP said to a collect or intent request. `pending`: waiting for the payer, the outcome
 * follows by callback; an intent names its `upi://pay` link and the page standing for the payer's
 * app (a collect has neither: the payer answers in their app). `error`: refused before anything was
 * sent; `timeout`: unknown, the expiry settles it.
 */
export type UpiOutcome =
  { kind: 'pending'; processorPaymentId: string; intentUrl: string | null; payerUrl: string | null } | NotPending;
type NotPending = { kind: 'error'; message: string } | { kind: 'timeout' };

/** The members of the PSP's answer this adapter reads. */
interface PspAnswer {
  id?: string;
  status?: string;
  error?: string;
  intentUrl?: string;
  payerUrl?: string;
}

/**
 * The built-in sandbox's UPI PSP (sandbox/upi.ts): collect and intent requests answered `pending`,
 * outcomes by callback.
 */
export function createUpiPsp(baseUrl: string, timeoutMs: number) {
  const client = createJsonClient(baseUrl, timeoutMs);

  const ask = async (
    path: string,
    input: UpiRequestInput,
  ): Promise<{ kind: 'answer'; answer: PspAnswer & { id: string } } | NotPending> => {
    const { testHeaders, ...body } = input;
    let response;
    try {
      response = await client.post(path, body, testHeaders);
    } catch {
      // Time-out or connection lost: the request may exist at the PSP; its expiry settles the payment.
      return { kind: 'timeout' };
    }
    const answer = (typeof response.body === 'object' && response.body !== null ? response.body : {}) as PspAnswer;
    if (response.status >= 300 || answer.status !== 'pending' || !answer.id)
      return { kind: 'error', message: String(answer.error ?? answer.status ?? response.status) };
    return { kind: 'answer', answer: { ...answer, id: answer.id } };
  };

  return {
    name: 'upi' as const,
    async collect(input: CollectInput): Promise<UpiOutcome> {
      const asked = await ask('/upi/v1/collect', input);
      if (asked.kind !== 'answer') return asked;
      return { kind: 'pending', processorPaymentId: asked.answer.id, intentUrl: null, payerUrl: null };
    },
    async intent(input: IntentInput): Promise<UpiOutcome> {
      const asked = await ask('/upi/v1/intent', input);
      if (asked.kind !== 'answer') return asked;
      const { id, intentUrl, payerUrl } = asked.answer;
      if (!intentUrl?.startsWith('upi://pay?') || !payerUrl)
        return { kind: 'error', message: 'the PSP answered no intent link' };
      return { kind: 'pending', processorPaymentId: id, intentUrl, payerUrl };
    },
    close: () => client.close(),
  };
}

export type UpiPsp = ReturnType<typeof createUpiPsp>;
