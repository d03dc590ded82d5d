import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.js';
import { AppError, notFound } from './errors.js';
import { systemClock } from './lib/clock.js';
import { listFailedJobs, retryJob } from './modules/jobs/index.js';
import { createVault, parseVaultKeys } from './modules/cards/index.js';
import { createMerchant, merchantExists, setMerchantStatus, validateMerchantInput } from './modules/merchants/index.js';
import { EVENT_TYPES, sendTestEventNow } from './modules/notifications/index.js';
import { openStorage, type Db, type Storage } from './storage/db.js';
import { EmbeddedServerError, startEmbeddedServer } from './storage/embedded-server.js';
import { importDump } from './storage/import-dump.js';
import { loadSecrets } from './storage/secrets.js';

const USAGE = `usage: gateway merchant create --email E --password P --name N
       gateway merchant status --id MERCHANT_ID --status active|restricted|suspended
       gateway jobs failed [--limit N] [--cursor C]
       gateway jobs retry --id JOB_ID
       gateway store import --file DUMP.sql   (the earlier embedded store's dump, into a new DATA_DIR)
       gateway events trigger TYPE --merchant MERCHANT_ID [--mode test|live]
         (a signed sample event of TYPE to the merchant's notifyUrl of that mode, default test)`;

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
  if (group === 'events' && command === 'trigger') return eventsTrigger(rest);
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

/**
 * A test event, sent as POST /events/test sends it (docs/notifications.md, "Test events"): prints its
 * outcome; exits 0 when the receiver answered 2xx, 1 when it did not (or no notifyUrl is set).
 */
async function eventsTrigger(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { merchant: { type: 'string' }, mode: { type: 'string', default: 'test' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [type, ...extra] = parsed.positionals;
  const { merchant, mode } = parsed.values;
  const known = EVENT_TYPES.find((t) => t === type);
  if (!known || extra.length > 0) {
    process.stderr.write(`the event type must be one of: ${EVENT_TYPES.join(', ')}\n${USAGE}\n`);
    return 2;
  }
  if (mode !== 'test' && mode !== 'live') {
    process.stderr.write(`--mode must be test or live\n${USAGE}\n`);
    return 2;
  }
  if (merchant === undefined) {
    process.stderr.write(`missing --merchant\n${USAGE}\n`);
    return 2;
  }
  const merchantId = positive('merchant', merchant, Number.MAX_SAFE_INTEGER);
  if (merchantId === null) return 2;
  const config = loadConfig();
  return withStore(config, async (storage) => {
    if (!(await merchantExists(storage.db, merchantId))) throw notFound(`merchant ${merchantId}`);
    const secrets = await loadSecrets(storage.db, config);
    const [current, ...previous] = parseVaultKeys(secrets.cardEncryptionKeys);
    const vault = createVault({ current, previous, fingerprintSecret: secrets.cardFingerprintSecret });
    const outcome = await sendTestEventNow(
      { db: storage.db, clock: systemClock, config, vault },
      { scope: { merchantId, livemode: mode === 'live' }, type: known },
    );
    process.stdout.write(`${JSON.stringify(outcome)}\n`);
    if (!outcome.delivered) process.stderr.write(`not delivered: ${outcome.error?.message ?? 'no answer'}\n`);
    return outcome.delivered ? 0 : 1;
  });
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
  return withStore(loadConfig(), async (storage) => {
    const result = await storage.db.transaction().execute(work);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  });
}

/** Opens the configured store (DATA_DIR's embedded server unless DATABASE_URL), runs `work` on it, closes it. */
async function withStore(config: Config, work: (storage: Storage) => Promise<number>): Promise<number> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedServer(config.dataDir, { role: 'tool' });
  try {
    const storage = await openStorage({ databaseUrl: embedded?.url ?? config.databaseUrl! });
    try {
      return await work(storage);
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
