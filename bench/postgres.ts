import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The benches' PostgreSQL: the test cluster, and throwaway databases on a server. */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let clusterUrl: string | undefined;
/** The admin URL of the test cluster (scripts/pg-cluster.sh), started unless it already answers; left running. */
export function testClusterUrl(): string {
  clusterUrl ??= execFileSync('bash', [path.join(ROOT, 'scripts/pg-cluster.sh'), 'start'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return clusterUrl;
}

export interface ThrowawayDatabase {
  name: string;
  url: string;
  drop: () => Promise<void>;
}

/** A fresh database on the server at `serverUrl`, named `prefix_<time>`. */
export async function createDatabase(serverUrl: string, prefix: string): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(`drop database if exists ${name} with (force)`);
    } finally {
      await client.end();
    }
  };
  return { name, url: url.toString(), drop };
}

/** A fresh database for `work`, dropped afterwards. */
export async function withDatabase<T>(
  serverUrl: string,
  prefix: string,
  work: (url: string) => Promise<T>,
): Promise<T> {
  const database = await createDatabase(serverUrl, prefix);
  try {
    return await work(database.url);
  } finally {
    await database.drop();
  }
}
