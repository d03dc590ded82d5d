import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * CPU time actually consumed by processes (Linux /proc), so a run on a shared, busy machine still
 * says what one payment costs: throughput there depends on what else runs, CPU per request does not.
 */
const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux the bench runs on

function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** PostgreSQL backends serving `database` (their title is "postgres: <user> <database> <client> …"). */
function backendsOf(database: string): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (title.startsWith('postgres: ') && title.split(/\s+/)[2] === database) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

export interface CpuMeter {
  /** CPU milliseconds per group since the meter started. */
  read(): Record<string, number>;
}

/** A process and its children (a WORKERS=n gateway: the cluster's primary and its workers). */
export function withChildren(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return [pid, ...children.map(Number)];
  } catch {
    return [pid];
  }
}

/**
 * The postmaster of the cluster in `pgdata` and its children (backends, io workers, checkpointer …):
 * postmaster.pid's first line is the postmaster's pid. None while the server is down.
 */
export function serverProcesses(pgdata: string): number[] {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return [];
  }
  return pid ? withChildren(pid) : [];
}

/**
 * Which PostgreSQL processes a run meters as "postgres": on a shared server, the backends of the bench's
 * database; on the embedded server, which serves the measured process alone, all of its processes (the
 * WAL writer, checkpointer and io workers work for the payments too).
 */
export type PostgresProcesses = { database: string } | { pgdata: string };

/** Meters named processes, and optionally PostgreSQL's (its backends come and go). */
export function startCpuMeter(processes: Record<string, number | number[]>, postgres?: PostgresProcesses): CpuMeter {
  const start = new Map<number, number>();
  const sample = () => {
    const now = new Map<number, { group: string; ms: number }>();
    for (const [group, pids] of Object.entries(processes)) {
      for (const pid of [pids].flat()) {
        const ms = cpuMs(pid);
        if (ms !== undefined) now.set(pid, { group, ms });
      }
    }
    if (postgres) {
      for (const pid of 'pgdata' in postgres ? serverProcesses(postgres.pgdata) : backendsOf(postgres.database)) {
        const ms = cpuMs(pid);
        if (ms !== undefined) now.set(pid, { group: 'postgres', ms });
      }
    }
    return now;
  };
  for (const [pid, { ms }] of sample()) start.set(pid, ms);
  // The bench process itself (autocannon): process.cpuUsage is exact and portable.
  const selfStart = process.cpuUsage();
  return {
    read() {
      const totals: Record<string, number> = {};
      for (const [pid, { group, ms }] of sample()) totals[group] = (totals[group] ?? 0) + ms - (start.get(pid) ?? 0);
      const self = process.cpuUsage(selfStart);
      totals['load generator'] = (self.user + self.system) / 1000;
      return totals;
    },
  };
}
