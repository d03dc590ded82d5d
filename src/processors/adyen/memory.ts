/**
 * A bounded map whose entries lapse: what one connector instance learned from its own calls. It
 * is a convenience for the calls that follow on the same instance, never the record: the gateway's
 * database and Adyen's notifications are.
 */
export class LapsingMap<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly limit = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, until: this.now() + this.ttlMs });
    // Oldest first: a Map iterates in insertion order.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.limit) break;
      this.entries.delete(oldest);
    }
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
