import { FirstAnswers } from './idempotency.js';
import { newId } from './util.js';
import type { CallbackMode } from './callbacks.js';

/**
 * One UPI request: a collect (sent to the payer's UPI id, answered in their app) or an intent (a
 * `upi://pay` link the payer opens or scans; the sandbox's payer page stands in for their app).
 */
export interface Collect {
  id: string;
  flow: 'collect' | 'intent';
  reference: string;
  amount: number;
  currency: string;
  status: 'pending' | 'success' | 'failed' | 'expired';
  upiResponse?: string;
  declineReason?: string;
  /** Intent only: how the payer page's answer is called back (the gateway's X-Sandbox-Callback). */
  callbackMode?: CallbackMode;
  createdAt: number;
}

/** UPI collect and intent requests, in memory. One nobody answers expires after the TTL (checked when read). */
export class UpiCollects {
  private readonly byId = new Map<string, Collect>();
  private readonly byReference = new Map<string, Collect>();
  readonly answers = new FirstAnswers();
  private baseUrl = '';

  constructor(private readonly ttlSeconds: number) {}

  /** Where browsers reach the payer page (set once the sandbox listens, or to a gateway relaying it). */
  setBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/+$/, '');
  }

  payerPageUrl(collect: Collect): string {
    return `${this.baseUrl}/upi-payer/${collect.id}`;
  }

  expiresAt(collect: Collect): string {
    return new Date(collect.createdAt + this.ttlSeconds * 1000).toISOString();
  }

  open(input: Pick<Collect, 'flow' | 'reference' | 'amount' | 'currency' | 'callbackMode'>): Collect {
    const collect: Collect = { id: newId('upi'), ...input, status: 'pending', createdAt: Date.now() };
    this.byId.set(collect.id, collect);
    this.byReference.set(collect.reference, collect);
    return collect;
  }

  get(id: string): Collect | undefined {
    return this.fresh(this.byId.get(id));
  }

  findByReference(reference: string): Collect | undefined {
    return this.fresh(this.byReference.get(reference));
  }

  private fresh(collect: Collect | undefined): Collect | undefined {
    if (collect?.status === 'pending' && Date.now() >= collect.createdAt + this.ttlSeconds * 1000)
      collect.status = 'expired';
    return collect;
  }
}
