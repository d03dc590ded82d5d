import type { Payment } from './ledger.js';
import type { FinalOutcome } from './outcomes.js';
import { newId } from './util.js';

/** A 3-D Secure challenge waiting for the payer. */
export interface Challenge {
  id: string;
  payment: Payment;
  /** What an approved challenge leads to (the card or wallet table decides). */
  outcome: FinalOutcome;
  returnUrl?: string;
  /** What the page shows the payer, e.g. "card ending 3184". */
  instrument: string;
  decision?: 'approve' | 'deny';
}

export class Challenges {
  private readonly byId = new Map<string, Challenge>();
  private baseUrl = '';

  /** Set once the sandbox listens (its public URL is only known then). */
  setBaseUrl(url: string): void {
    this.baseUrl = url.replace(/\/+$/, '');
  }

  /** Opens a challenge and returns the ACS page's address (the `challengeUrl`). */
  open(input: Omit<Challenge, 'id' | 'decision'>): string {
    const challenge: Challenge = { id: newId('acs'), ...input };
    this.byId.set(challenge.id, challenge);
    return `${this.baseUrl}/acs/${challenge.id}`;
  }

  get(id: string): Challenge | undefined {
    return this.byId.get(id);
  }
}
