import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { AppError } from './errors.js';
import { systemClock } from './lib/clock.js';
import { listFailedJobs, retryJob } from './modules/jobs/index.js';
import { createMerchant, setMerchantStatus, validateMerchantInput } from './modules/merchants/index.js';
import { openStorage, type Db } from './storage/db.js';
import { EmbeddedServerError, startEmbeddedServer } from './storage/embedded-server.js';
import { importDump } from './storage/import-dump.js';

const USAGE = `usage: gateway merchant create --email E --password P --name N
       gateway merchant status --id MERCHANT_ID --status active|restricted|suspended
       gateway jobs failed [--limit N] [--cursor C]
       gateway jobs retry --id JOB_ID
       gateway store import --file DUMP.sql   (the earlier embedded store's dump, into a new DATA_DIR)`;

/**
 * Operator CLI. Prints exactly one JSON object on stdout on success; messages go to stderr.
 * Without DATABASE_URL it works on DATA_DIR's embedded PostgreSQL server: the one a running gateway
 * runs, or one it starts for its call and stops after it.
 */
async function main(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === 'merchant' && command === 'create') return merchantCreate(rest);
  if (group === 'merchant' && command === 'status') return merchantStatus(rest);
  if (group === 'jobs' && command === 'failed') return jobsFailed(rest);
  if (group === 'jobs' && command === 'retry') return jobsRetry(rest);
  if (group === 'store' && command === 'import') return storeImport(rest);
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

async function merchantCreate(args: string[]): Promise<number> {
  const values = options(args, ['email', 'password', 'name'] as const);
  if (!values) return 2;
  const input = { email: values.email, password: values.password, name: values.name };
  validateMerchantInput(input);
  return onStore((db) => createMerchant({ db }, input));
}

async function merchantStatus(args: string[]): Promise<number> {
  const values = options(args, ['id', 'status'] as const);
  if (!values) return 2;
  if (!/^[1-9]\d{0,14}$/.test(values.id)) {
    process.stderr.write(`--id must be a merchant id (a positive integer)\n${USAGE}\n`);
    return 2;
  }
  return onStore((db) => setMerchantStatus({ db }, { merchantId: Number(values.id), status: values.status }));
}

async function storeImport(args: string[]): Promise<number> {
  const values = options(args, ['file'] as const);
  if (!values) return 2;
  const config = loadConfig();
  if (config.databaseUrl) {
    process.stderr.write(
      'store import loads into the embedded server of DATA_DIR: unset DATABASE_URL (use psql for a server of your own)\n',
    );
    return 2;
  }
  process.stdout.write(`${JSON.stringify(await importDump(config.dataDir, values.file))}\n`);
  return 0;
}

/** Every merchant's failed jobs and the operator's own (processing provider callbacks), newest first. */
async function jobsFailed(args: string[]): Promise<number> {
  const values = options(args, [] as const, ['limit', 'cursor'] as const);
  if (!values) return 2;
  const limit = values.limit === undefined ? undefined : positive('limit', values.limit, 1000);
  if (limit === null) return 2;
  return onStore((db) => listFailedJobs({ db }, { scope: 'all', limit, cursor: values.cursor }));
}

async function jobsRetry(args: string[]): Promise<number> {
  const values = options(args, ['id'] as const);
  if (!values) return 2;
  const jobId = positive('id', values.id, Number.MAX_SAFE_INTEGER);
  if (jobId === null) return 2;
  return onStore((db) => retryJob({ db, clock: systemClock }, { scope: 'all', jobId }));
}

/** The option as a positive integer up to `max`; null (with the usage on stderr) when it is not one. */
function positive(name: string, value: string, max: number): number | null {
  if (/^[1-9]\d{0,15}$/.test(value) && Number(value) <= max) return Number(value);
  process.stderr.write(`--${name} must be an integer from 1 to ${max}\n${USAGE}\n`);
  return null;
}

/** The command's options, `names` required and `optional` not; undefined (with the usage on stderr) when they are off. */
function options<K extends string, O extends string = never>(
  args: string[],
  names: readonly K[],
  optional: readonly O[] = [],
): (Record<K, string> & Partial<Record<O, string>>) | undefined {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: Object.fromEntries([...names, ...optional].map((name) => [name, { type: 'string' as const }])),
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return undefined;
  }
  const missing = names.filter((name) => values[name] === undefined);
  if (missing.length > 0) {
    process.stderr.write(`missing ${missing.map((m) => `--${m}`).join(', ')}\n${USAGE}\n`);
    return undefined;
  }
  return values as Record<K, string> & Partial<Record<O, string>>;
}

/** Runs the command in one transaction on the configured store and prints its result as one JSON line. */
async function onStore(work: (db: Db) => Promise<unknown>): Promise<number> {
  const config = loadConfig();
  const embedded = config.databaseUrl ? undefined : await startEmbeddedServer(config.dataDir, { role: 'tool' });
  try {
    const storage = await openStorage({ databaseUrl: embedded?.url ?? config.databaseUrl! });
    try {
      const result = await storage.db.transaction().execute(work);
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    } finally {
      await storage.close();
    }
  } finally {
    await embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    const message =
      error instanceof AppError || error instanceof ConfigError || error instanceof EmbeddedServerError
        ? error.message
        : `error: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exit(1);
  },
);
