export interface Delivery {
  /** Stripe event type or Adyen eventCode. */
  type: string;
  /** The exact bytes sent (what a signature covers). */
  body: string;
  headers: Record<string, string>;
  /** HTTP status the receiver answered, or undefined when it could not be reached. */
  status?: number;
  /** The receiver's answer body (Adyen expects `[accepted]`). */
  answer?: string;
  error?: string;
}

/**
 * Posts webhooks to the receiver and keeps a record of each attempt. Sends happen in the
 * background, in order; `settled()` waits until every queued one got its answer.
 */
export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(public url: string | undefined) {}

  /** Queues `copies` deliveries; the first goes `delayMs` after the call (after the API answer is written). */
  send(type: string, body: string, headers: Record<string, string>, copies = 1, delayMs = 0): void {
    if (!this.url || this.closed) return;
    const url = this.url;
    this.chain = this.chain.then(() => new Promise<void>((resolve) => setTimeout(resolve, delayMs)));
    for (let i = 0; i < copies; i++) {
      this.chain = this.chain.then(() => this.post(url, type, body, headers));
    }
  }

  settled(): Promise<void> {
    return this.chain;
  }

  close(): Promise<void> {
    this.closed = true;
    return this.chain;
  }

  private async post(url: string, type: string, body: string, headers: Record<string, string>): Promise<void> {
    const delivery: Delivery = { type, body, headers };
    try {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      delivery.status = answer.status;
      delivery.answer = await answer.text();
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
    this.deliveries.push(delivery);
  }
}
