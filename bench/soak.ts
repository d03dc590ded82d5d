import { readFileSync } from 'node:fs';
import autocannon, { type RequestSpec } from 'autocannon';
import { percentile } from './percentile.js';

/**
 * `npm run bench -- --soak [--soak-minutes 10]`: payments at a fixed rate (half the peak measured
 * just before, on the same gateway) for minutes, to see what a short run cannot: memory that grows
 * and latency that drifts. autocannon's `overallRate` keeps the offered load constant whatever the
 * answers' latency, so a slower gateway shows as higher latency, not as fewer requests.
 */
export interface SoakOptions {
  url: string;
  rate: number;
  minutes: number;
  connections: number;
  headers: Record<string, string>;
  body: string;
  nextPath: () => string;
  /** The size of the pre-created supply: the run ends early (and says so) if it runs out. */
  amount: number;
  isFailure: (body: string) => boolean;
  /** The gateway process whose resident memory is sampled. */
  pid: number;
}

export interface SoakMinute {
  minute: number;
  answered: number;
  errors: number;
  p50: number;
  p99: number;
}

export interface SoakResult {
  rate: number;
  seconds: number;
  minutes: SoakMinute[];
  /** Resident set size of the gateway, in MB, every RSS_EVERY_MS from the start of the load. */
  rss: Array<{ second: number; mb: number }>;
}

const RSS_EVERY_MS = 5000;

function rssMb(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function runSoak(options: SoakOptions): Promise<SoakResult> {
  const latencies: number[][] = [];
  const errors: number[] = [];
  const rss: SoakResult['rss'] = [];
  const begin = Date.now();
  // Answers that arrive after the last full minute ends count in that minute.
  const lastMinute = Math.max(1, Math.ceil(options.minutes)) - 1;
  const minuteNow = () => Math.min(lastMinute, Math.floor((Date.now() - begin) / 60_000));
  const fail = () => (errors[minuteNow()] = (errors[minuteNow()] ?? 0) + 1);
  const request: RequestSpec = {
    method: 'POST',
    headers: options.headers,
    body: options.body,
    setupRequest: (req) => ({ ...req, path: options.nextPath() }),
    onResponse: (status, body) => {
      if (status < 300 && options.isFailure(body)) fail();
    },
  };
  const sampleRss = () => {
    const mb = rssMb(options.pid);
    if (mb !== undefined) rss.push({ second: Math.round((Date.now() - begin) / 1000), mb });
  };
  sampleRss();
  const sampler = setInterval(sampleRss, RSS_EVERY_MS);
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        overallRate: options.rate,
        amount: options.amount,
        timeout: 10,
        requests: [request],
      },
      (error) => {
        clearTimeout(timer);
        clearInterval(sampler);
        sampleRss();
        if (error) return reject(error);
        const minutes = latencies.map((list, minute) => {
          const sorted = [...list].sort((a, b) => a - b);
          return {
            minute: minute + 1,
            answered: list.length,
            errors: errors[minute] ?? 0,
            p50: Math.round(percentile(sorted, 0.5)),
            p99: Math.round(percentile(sorted, 0.99)),
          };
        });
        resolve({ rate: options.rate, seconds: (Date.now() - begin) / 1000, minutes, rss });
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      (latencies[minuteNow()] ??= []).push(ms);
      if (status >= 300) fail();
    });
    instance.on('reqError', fail);
    const timer = setTimeout(() => instance.stop(), options.minutes * 60_000);
  });
}

/** Least-squares slope of RSS in MB per minute. */
function slopePerMinute(points: SoakResult['rss']): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.second, 0) / n;
  const my = points.reduce((s, p) => s + p.mb, 0) / n;
  const num = points.reduce((s, p) => s + (p.second - mx) * (p.mb - my), 0);
  const den = points.reduce((s, p) => s + (p.second - mx) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 60;
}

/**
 * The soak's report. The first minute is the settling-in (JIT, pools, caches filling), so the
 * verdicts compare the later minutes: RSS "grew" when its slope after the first minute exceeds
 * 1 MB/min and it ended over 10 % above its value at one minute; latency "drifted" when the last
 * minute's p99 is over 1.5× the best of the first half's minutes (the machine is shared: a single
 * noisy minute is not a drift, a rising trend is).
 */
export function formatSoak(result: SoakResult, peak: number): string {
  const rss = result.rss;
  const settled = rss.filter((p) => p.second >= 60);
  const basis = settled.length >= 2 ? settled : rss;
  const at = (i: number) => basis[Math.max(0, Math.min(basis.length - 1, i))];
  const start = at(0);
  const middle = at(Math.floor(basis.length / 2));
  const end = at(basis.length - 1);
  const slope = slopePerMinute(basis);
  const grew = slope > 1 && end.mb > start.mb * 1.1;
  const full = result.minutes.filter((m) => m.answered > 0);
  const firstHalf = full.slice(0, Math.max(1, Math.ceil(full.length / 2)));
  const bestEarly = Math.min(...firstHalf.map((m) => m.p99));
  const last = full[full.length - 1];
  const drifted = last !== undefined && last.p99 > bestEarly * 1.5;
  const errors = full.reduce((s, m) => s + m.errors, 0);
  const lines = [
    `Soak: ${result.rate}/s offered (half the peak of ${Math.round(peak)}/s measured just before) for ${(result.seconds / 60).toFixed(1)} min, ${errors} errors`,
    '',
    '| Minute | Answered | Errors | p50 ms | p99 ms |',
    '|---:|---:|---:|---:|---:|',
    ...result.minutes.map((m) => `| ${m.minute} | ${m.answered} | ${m.errors} | ${m.p50} | ${m.p99} |`),
    '',
    `Gateway RSS: ${rss[0]?.mb.toFixed(0)} MB at the start of the load; after the first minute ${start.mb.toFixed(0)} MB (${start.second} s), middle ${middle.mb.toFixed(0)} MB (${middle.second} s), end ${end.mb.toFixed(0)} MB (${end.second} s); slope ${slope.toFixed(2)} MB/min`,
    `RSS ${grew ? 'GREW' : 'did not grow'} (slope > 1 MB/min and +10 %); latency ${drifted ? 'DRIFTED' : 'did not drift'} (last minute p99 ${last?.p99 ?? '-'} ms against the first half's best ${Number.isFinite(bestEarly) ? bestEarly : '-'} ms, threshold 1.5×)`,
  ];
  return lines.join('\n');
}
