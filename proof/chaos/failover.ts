import { haCluster } from './ha.js';
import { formatReport, runChaos, type ChaosReport } from './run.js';

export interface FailoverOptions {
  orders: number;
  kills: number;
  concurrency: number;
  seed: number;
  /** HAProxy's port; the cluster's other ports follow it (proof/chaos/ha.ts). */
  haPort: number;
  deadlineMs: number;
  answerWithinMs: number;
  settle: boolean;
  log?: (line: string) => void;
}

/**
 * The failover scenario: two gateway instances on one database reached through HAProxy, the primary
 * PostgreSQL server SIGKILLed `kills` times under load (Patroni promotes the synchronous standby), and
 * the chaos suite's invariants checked afterwards. The cluster is started for the run and stopped after it.
 */
export async function runFailover(o: FailoverOptions): Promise<ChaosReport> {
  const cluster = haCluster(o.haPort);
  const log = o.log ?? (() => {});
  try {
    log(`failover: cluster through HAProxy at ${cluster.start()}`);
    return await runChaos({
      scenario: 'failover',
      seed: o.seed,
      orders: o.orders,
      concurrency: o.concurrency,
      faults: o.kills,
      instances: 2,
      notifications: true,
      databaseUrl: await cluster.freshDatabase(),
      deadlineMs: o.deadlineMs,
      answerWithinMs: o.answerWithinMs,
      settle: o.settle,
      log,
      killPrimary: async () => log(`  killed the primary, ${await cluster.killPrimary()}`),
      waitForPrimary: () => cluster.waitForPrimary(),
      waitForStandby: () => cluster.waitForStandby(),
    });
  } finally {
    cluster.stop();
  }
}

export { formatReport };
