import { createJsonClient, ProcessorTimeoutError, type JsonResponse } from './http-client.js';
import {
  ProcessorCallError,
  type AuthorizeOutcome,
  type Processor,
  type ProviderCallback,
  type ProviderEvent,
  type StatusResult,
} from './types.js';

/** The members of the sandbox card API's answers this adapter reads (any may be missing or odd). */
interface SandboxAnswer {
  id?: string;
  status?: string;
  captured?: boolean;
  declineCode?: string;
  /** The wallet processor's name for the decline code. */
  issuerResponse?: string;
  declineReason?: string;
  challengeUrl?: string;
  eci?: string;
  error?: string;
  retryable?: boolean;
}

const answerOf = (body: unknown): SandboxAnswer => (typeof body === 'object' && body !== null ? body : {});

/**
 * The built-in sandbox processors. acme answers an authorization synchronously; globex
 * accepts it (202) and reports the outcome by callback; the wallet processor answers a wallet token
 * synchronously. All share the sandbox's API shape (its follow-ups included), so one adapter serves
 * them with their own path prefix.
 */
export function createCardProcessor(
  name: 'acme' | 'globex' | 'wallet',
  baseUrl: string,
  timeoutMs: number,
): Processor & { close(): Promise<void> } {
  const client = createJsonClient(baseUrl, timeoutMs);
  const prefix = `/${name}/v1`;

  const expectOk = (response: JsonResponse, what: string): SandboxAnswer => {
    const body = answerOf(response.body);
    if (response.status >= 300) {
      throw new ProcessorCallError(`${name} ${what} failed: ${body.error ?? response.status}`, response.status);
    }
    return body;
  };

  return {
    name,
    async authorize(input): Promise<AuthorizeOutcome> {
      let response;
      try {
        response = await client.post(
          `${prefix}/payments`,
          {
            reference: input.reference,
            amount: input.amount,
            currency: input.currency,
            capture: input.capture,
            ...(input.card ? { card: input.card } : {}),
            ...(input.wallet ? { token: input.wallet.token, walletType: input.wallet.walletType } : {}),
            threeDS: input.threeDS,
          },
          input.testHeaders,
        );
      } catch (error) {
        if (error instanceof ProcessorTimeoutError) return { kind: 'timeout' };
        // Connection refused / reset before an answer: nothing is known to exist, but the request may
        // have been received. Treat like a time-out: reconcile by reference, never re-send elsewhere.
        return { kind: 'timeout' };
      }
      const body = answerOf(response.body);
      if (response.status >= 500)
        return { kind: 'error', retryable: body.retryable !== false, message: String(body.error ?? response.status) };
      if (response.status >= 400)
        return { kind: 'error', retryable: false, message: String(body.error ?? response.status) };
      switch (body.status ?? '') {
        case 'approved':
          return {
            kind: 'approved',
            processorPaymentId: String(body.id),
            captured: Boolean(body.captured),
            ...(typeof body.eci === 'string' ? { eci: body.eci } : {}),
          };
        case 'declined':
          return {
            kind: 'declined',
            processorPaymentId: body.id ?? null,
            declineCode: String(body.declineCode ?? body.issuerResponse ?? '05'),
            declineReason: String(body.declineReason ?? 'declined'),
          };
        case 'challenge':
          return { kind: 'challenge', processorPaymentId: String(body.id), challengeUrl: String(body.challengeUrl) };
        case 'pending':
        case 'accepted':
          return { kind: 'pending', processorPaymentId: String(body.id) };
        default:
          return { kind: 'error', retryable: false, message: `unexpected status ${String(body.status)}` };
      }
    },

    async capture({ processorPaymentId: id }, amount) {
      expectOk(await client.post(`${prefix}/payments/${encodeURIComponent(id)}/capture`, { amount }), 'capture');
    },

    async void({ processorPaymentId: id }) {
      expectOk(await client.post(`${prefix}/payments/${encodeURIComponent(id)}/void`, {}), 'void');
    },

    async refund({ processorPaymentId: id }, amount, reference, testHeaders) {
      const body = expectOk(
        await client.post(`${prefix}/payments/${encodeURIComponent(id)}/refunds`, { amount, reference }, testHeaders),
        'refund',
      );
      return { refundId: String(body.id), status: body.status === 'pending' ? 'pending' : 'succeeded' };
    },

    async queryStatus(reference): Promise<StatusResult | null> {
      const response = await client.get(`${prefix}/payments?reference=${encodeURIComponent(reference)}`);
      if (response.status === 404) return null;
      const body = expectOk(response, 'status query');
      return {
        processorPaymentId: String(body.id),
        status: body.status as StatusResult['status'],
        declineCode: body.declineCode,
        declineReason: body.declineReason,
      };
    },

    parseCallback(callback: ProviderCallback): ProviderEvent {
      const data = callback.providerData ?? {};
      const outcomes: Record<string, ProviderEvent['outcome']> = {
        success: 'succeeded',
        failed: 'failed',
        pending: 'pending',
        requires_action: 'requires_action',
        refunded: 'refunded',
        chargeback: 'chargeback',
      };
      return {
        processorPaymentId: callback.transactionId,
        reference: typeof data.reference === 'string' ? data.reference : undefined,
        outcome: outcomes[callback.status] ?? 'unknown',
        declineCode: typeof data.declineCode === 'string' ? data.declineCode : undefined,
        declineReason: typeof data.declineReason === 'string' ? data.declineReason : undefined,
        challengeUrl: typeof data.challengeUrl === 'string' ? data.challengeUrl : undefined,
        amount: callback.amount,
      };
    },

    close: () => client.close(),
  };
}
