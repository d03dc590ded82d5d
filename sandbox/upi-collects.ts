import { FirstAnswers } from './idempotency.js';
import { newId } from './util.js';

/** One UPI collect request. */
export interface Collect {
  id: string;
  reference: string;
  amount: number;
  currency: string;
  status: 'pending' | 'success' | 'failed' | 'expired';
  upiResponse?: string;
  declineReason?: string;
  createdAt: number;
}

/** UPI collect requests, in memory. A collect nobody answers expires after the TTL (checked when read). */
export class UpiCollects {
  private readonly byId = new Map<string, Collect>();
  private readonly byReference = new Map<string, Collect>();
  readonly answers = new FirstAnswers();

  constructor(private readonly ttlSeconds: number) {}

  open(input: Pick<Collect, 'reference' | 'amount' | 'currency'>): Collect {
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
