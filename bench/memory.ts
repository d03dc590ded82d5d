import { readFileSync } from 'node:fs';
import { serverProcesses, withChildren } from './cpu.js';

/**
 * Memory of the gateway and of the embedded PostgreSQL server it runs, as PSS (proportional set size,
 * /proc/<pid>/smaps_rollup). RSS would count PostgreSQL's shared memory (shared_buffers, the WAL buffers)
 * once in every process that touched it; PSS splits each shared page between the processes that map it,
 * so the sum over the server's processes is what they hold together.
 */
export interface IdleMemory {
  /** The gateway process (and its workers with WORKERS > 1), in MB. */
  gatewayMb: number;
  /** Every process of the embedded server (postmaster and its children), in MB; undefined without one. */
  postgresMb?: number;
  /** How many server processes were counted. */
  postgresProcesses?: number;
}

/** A process's PSS in kB, or 0 when it is gone. */
function pssKb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Pss:'));
    return Number(line?.split(/\s+/)[1] ?? 0);
  } catch {
    return 0;
  }
}

const mb = (kb: number) => Math.round(kb / 1024);

/** The PSS of the gateway `gatewayPid` (with its children) and of the server on `pgdata`, when given. */
export function idleMemory(gatewayPid: number, pgdata?: string): IdleMemory {
  const gatewayMb = mb(withChildren(gatewayPid).reduce((sum, pid) => sum + pssKb(pid), 0));
  if (!pgdata) return { gatewayMb };
  const server = serverProcesses(pgdata);
  return {
    gatewayMb,
    postgresMb: mb(server.reduce((sum, pid) => sum + pssKb(pid), 0)),
    postgresProcesses: server.length,
  };
}

export const totalMb = (m: IdleMemory) => m.gatewayMb + (m.postgresMb ?? 0);

export const formatMemory = (m: IdleMemory) =>
  m.postgresMb === undefined
    ? `gateway ${m.gatewayMb} MB`
    : `${totalMb(m)} MB: gateway ${m.gatewayMb} MB, PostgreSQL ${m.postgresMb} MB (${m.postgresProcesses} processes)`;
