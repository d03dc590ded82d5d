/**
 * When a failed delivery is tried again (docs/notifications.md "Retry schedule"): exponential back-off,
 * 1 minute tripled after each failure up to 12 hours, each delay jittered by ±20 % so receivers coming
 * back from an outage are not hit by every sender at once; about 3 days after the event the delivery
 * is given up. A Retry-After longer than the back-off is honoured (up to the 12-hour cap).
 */
export const DELIVERY_WINDOW_SECONDS = 3 * 24 * 3600;
const FIRST_DELAY_SECONDS = 60;
const MAX_DELAY_SECONDS = 12 * 3600;

/** The nominal delay after the n-th failed attempt (n ≥ 1), before jitter. */
export const backoffSeconds = (failedAttempts: number): number =>
  Math.min(FIRST_DELAY_SECONDS * 3 ** (failedAttempts - 1), MAX_DELAY_SECONDS);

/** The next attempt's time, or undefined when it would fall after the delivery window (give up). */
export function nextAttemptAt(input: {
  firstQueuedAt: Date;
  now: Date;
  failedAttempts: number;
  retryAfterSeconds?: number;
  random?: () => number;
}): Date | undefined {
  const jitter = 0.8 + 0.4 * (input.random ?? Math.random)();
  const delay = Math.min(
    Math.max(backoffSeconds(input.failedAttempts) * jitter, input.retryAfterSeconds ?? 0),
    MAX_DELAY_SECONDS,
  );
  const next = new Date(input.now.getTime() + Math.round(delay * 1000));
  return next.getTime() - input.firstQueuedAt.getTime() > DELIVERY_WINDOW_SECONDS * 1000 ? undefined : next;
}

/** Retry-After as seconds from `now` (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now.getTime()) / 1000);
}
