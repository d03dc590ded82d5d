import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { AppError } from './errors.js';
import { createMerchant, validateMerchantInput } from './modules/merchants/index.js';
import { openStorage } from './storage/db.js';

const USAGE = `usage: gateway merchant create --email E --password P --name N`;

/**
 * Operator CLI. Prints exactly one JSON object on stdout on success; messages go to stderr.
 * Works on the embedded store while the gateway is stopped (the store's lock file says when
 * it is not), and on a PostgreSQL server at any time.
 */
async function main(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group !== 'merchant' || command !== 'create') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const missing = (['email', 'password', 'name'] as const).filter((k) => values[k] === undefined);
  if (missing.length > 0) {
    process.stderr.write(`missing ${missing.map((m) => `--${m}`).join(', ')}\n${USAGE}\n`);
    return 2;
  }

  const input = { email: values.email!, password: values.password!, name: values.name! };
  validateMerchantInput(input);
  const config = loadConfig();
  const storage = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const created = await storage.db.transaction().execute((trx) => createMerchant({ db: trx }, input));
    process.stdout.write(`${JSON.stringify(created)}\n`);
    return 0;
  } finally {
    await storage.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    const message =
      error instanceof AppError || error instanceof ConfigError ? error.message : `error: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exit(1);
  },
);
