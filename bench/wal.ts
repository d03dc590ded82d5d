import type pg from 'pg';

/** What PostgreSQL wrote to its write-ahead log over a stretch of the run, per request. */
export interface WalWrites {
  bytes: number;
  /** B-tree leaf inserts: one per index entry written. */
  indexEntries: number;
  /** Heap records: row inserts, updates (HOT or not), locks, deletes. */
  rowRecords: number;
  commits: number;
}

/**
 * Starts counting WAL records (pg_walinspect, PostgreSQL 15+, as the cluster's superuser). The WAL is the
 * cluster's, so the count is only the gateway's while nothing else writes to that cluster. `read`
 * divides by the requests answered meanwhile: a deterministic figure of the writes a payment costs,
 * unlike the rates, which move with the machine's load.
 */
export async function startWalMeter(client: pg.Pool): Promise<{ read(requests: number): Promise<WalWrites> }> {
  await client.query('create extension if not exists pg_walinspect');
  const position = async () => (await client.query<{ lsn: string }>('select pg_current_wal_lsn() as lsn')).rows[0].lsn;
  const from = await position();
  return {
    async read(requests) {
      const to = await position();
      const { rows } = await client.query<{ kind: string; count: string; bytes: string }>(
        `select "resource_manager/record_type" as kind, count, combined_size as bytes
           from pg_get_wal_stats($1, $2, true)`,
        [from, to],
      );
      const per = (match: (kind: string) => boolean, field: 'count' | 'bytes' = 'count') =>
        rows.filter((row) => match(row.kind)).reduce((sum, row) => sum + Number(row[field]), 0) / requests;
      return {
        bytes: per(() => true, 'bytes'),
        indexEntries: per((kind) => kind.startsWith('Btree/INSERT_LEAF') || kind === 'Btree/INSERT_POST'),
        rowRecords: per((kind) => kind.startsWith('Heap/')),
        commits: per((kind) => kind === 'Transaction/COMMIT'),
      };
    },
  };
}

export const formatWal = (w: WalWrites) =>
  `WAL per payment ${Math.round(w.bytes).toLocaleString('en-US')} bytes: ${w.indexEntries.toFixed(1)} index entries, ${w.rowRecords.toFixed(1)} row records, ${w.commits.toFixed(1)} commits`;
