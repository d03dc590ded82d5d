/**
 * A fault the next matching API request meets, set by a test (`sim.next(…)`); not part of any
 * processor's API. Without `processed`, the request fails before the processor acts on it; with
 * `processed: true` the operation takes effect (a charge is made) and only the answer is lost.
 */
export interface Fault {
  /** Only requests whose operation ("POST /v1/payment_intents/{intent}/capture") or path contains this. */
  match?: string;
  /** Answer with this status (500, 502, 503, 429, …) in the processor's error shape. */
  status?: number;
  /** With `status`: a Retry-After header, in seconds. */
  retryAfterSeconds?: number;
  /** With `status`, Stripe only: the Stripe-Should-Retry header (`false`: the SDK must not retry). */
  shouldRetry?: boolean;
  /** Hold the answer this long (the operation takes effect first). */
  delayMs?: number;
  /** Never answer: the connection stays open until the caller gives up or the simulator closes. */
  hang?: boolean;
  /** Destroy the connection instead of answering. */
  reset?: boolean;
  /** The operation takes effect before the fault strikes (default false; always true for `delayMs`). */
  processed?: boolean;
}

export class Faults {
  private queue: { fault: Fault; left: number }[] = [];

  add(fault: Fault, times = 1): void {
    this.queue.push({ fault, left: times });
  }

  clear(): void {
    this.queue = [];
  }

  /** The first queued fault this request matches, counted as used. */
  take(operation: string, path: string): Fault | undefined {
    const entry = this.queue.find(
      ({ fault }) => fault.match === undefined || operation.includes(fault.match) || path.includes(fault.match),
    );
    if (!entry) return undefined;
    if (--entry.left <= 0) this.queue.splice(this.queue.indexOf(entry), 1);
    return entry.fault;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
