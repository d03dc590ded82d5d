/**
 * A full garbage collection once the process has gone quiet after work. Under load V8 grows its heap,
 * mostly with garbage by the time the load ends, and gives it back only long after the process goes idle:
 * an idle gateway after a burst held far more memory than one just started (docs/performance.md, "Idle
 * memory"). A collection then costs nothing anyone waits for; under load it never runs. Needs `--expose-gc` (scripts/gateway.sh, which `npm start` runs); without it this
 * does nothing.
 */
export interface IdleGcOptions {
  /** How often CPU use is sampled. */
  everyMs: number;
  /** CPU use (share of one core) at or below which a sample counts as idle. */
  idleShare: number;
  /** Idle samples in a row after busy ones before collecting. */
  quietSamples: number;
}

// An idle gateway's own beat (job loop, heartbeat, key-cache probes) stays well under this share of a
// core; a loaded one is far above it.
export const IDLE_GC: IdleGcOptions = { everyMs: 1000, idleShare: 0.25, quietSamples: 2 };

/**
 * Decides, sample by sample, when to collect: once per spell of work, after it has been quiet long enough.
 * The start, which sampling follows, is the first spell.
 */
export function idleCollector(options: IdleGcOptions): (cpuShare: number) => boolean {
  let worked = true;
  let quiet = 0;
  return (cpuShare) => {
    if (cpuShare > options.idleShare) {
      worked = true;
      quiet = 0;
      return false;
    }
    if (!worked || ++quiet < options.quietSamples) return false;
    worked = false;
    return true;
  };
}

/** Starts the sampling when the process may collect (`--expose-gc`); returns the function that stops it. */
export function collectWhenIdle(options: IdleGcOptions = IDLE_GC): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return () => {};
  const decide = idleCollector(options);
  let last = process.cpuUsage();
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    if (decide((used.user + used.system) / 1000 / options.everyMs)) gc();
  }, options.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
