import { randomBytes } from 'node:crypto';

/** Ids the sandbox mints: prefix + 24 hex characters (`acme_…`, `gbx_…`, `upi_…`, `wal_…`, `acs_…`, `rf_…`, `evt_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** An error answered as `{ error, message?, ...extra }` with the given HTTP status. */
export class SandboxError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message?: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message ?? code);
  }
}

/**
 * Every timer the sandbox starts (late callbacks, retries, pending settlements, answer latency),
 * so `close()` stops them all: scheduled work is dropped, sleepers wake at once.
 */
export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  private closed = false;

  get isClosed(): boolean {
    return this.closed;
  }

  later(ms: number, task: () => void | Promise<void>): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      Promise.resolve()
        .then(task)
        .catch(() => undefined); // background work records its own failures
    }, ms);
    this.pending.set(timer, () => undefined);
  }

  sleep(ms: number): Promise<void> {
    if (this.closed || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve();
      }, ms);
      this.pending.set(timer, resolve);
    });
  }

  close(): void {
    this.closed = true;
    for (const [timer, wake] of this.pending) {
      clearTimeout(timer);
      wake();
    }
    this.pending.clear();
  }
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
