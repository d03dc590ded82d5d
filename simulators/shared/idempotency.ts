export interface Stored {
  status: number;
  body: unknown;
  /** What identifies the first request: its operation, path and decoded parameters. */
  fingerprint: string;
}

/**
 * Idempotency keys as both processors document them: the same key and the same request replay
 * the first answer without acting again; the same key with other parameters is refused. Keys are
 * kept for the simulator's lifetime (the processors keep them at least 24 hours).
 */
export class IdempotencyStore {
  private readonly answers = new Map<string, Stored>();
  private readonly inFlight = new Set<string>();

  lookup(key: string, fingerprint: string): { replay: Stored } | { conflict: true } | { inFlight: true } | undefined {
    if (this.inFlight.has(key)) return { inFlight: true };
    const stored = this.answers.get(key);
    if (!stored) return undefined;
    return stored.fingerprint === fingerprint ? { replay: stored } : { conflict: true };
  }

  begin(key: string): void {
    this.inFlight.add(key);
  }

  /** Records the answer; a 5xx is not kept, so that a retry with the same key runs again. */
  finish(key: string, stored: Stored | undefined): void {
    this.inFlight.delete(key);
    if (stored && stored.status < 500) this.answers.set(key, stored);
  }
}
