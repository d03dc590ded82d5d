/** An HTTP answer as the processor first gave it. */
export interface Answer {
  statusCode: number;
  body: unknown;
}

/**
 * Processor-side idempotency by `reference`: the first answer for a reference is the answer
 * for every repeat, and the work behind it (a charge, a collect request) is done only once.
 * Errors (a 400, the 503 processor error) are not remembered: nothing was recorded.
 */
export class FirstAnswers {
  private readonly byReference = new Map<string, Answer>();

  once(reference: string, answer: () => Answer): Answer {
    const earlier = this.byReference.get(reference);
    if (earlier) return earlier;
    const first = answer();
    this.byReference.set(reference, first);
    return first;
  }
}
