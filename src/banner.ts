import type { Config } from './config.js';
import type { DemoCredentials } from './modules/merchants/index.js';
import type { EmbeddedServer } from './storage/embedded-server.js';
import { cardKeyInStore } from './storage/secrets.js';

/** The start-up banner on stderr: where the gateway listens, and what a developer must know at once. */
export function printBanner(
  config: Config,
  url: string,
  demo: DemoCredentials | undefined,
  embedded: EmbeddedServer | undefined,
): void {
  const workers = config.workers > 1 ? ` (${config.workers} workers)` : '';
  const banner = [
    `svc-gateway ${config.env} listening on ${url}${workers} (public URL ${config.publicUrl})`,
    `  API reference: ${config.publicUrl}/docs`,
  ];
  if (embedded) {
    const throwaway = config.dataDir === 'memory://' ? ', a throwaway cluster removed at exit' : '';
    banner.push(
      `  Embedded PostgreSQL (data in ${embedded.pgdata}${throwaway}), stopped with the gateway:`,
      `    ${embedded.url}`,
      '    (for pg_dump and psql; reachable from this machine only)',
    );
  }
  if (cardKeyInStore(config)) {
    banner.push(
      '',
      '  !!! DEVELOPMENT SECRETS: the card encryption key is kept in this store (table system_secrets),',
      '  !!! next to the card numbers it encrypts: a dump or backup of this store decrypts them.',
      '  !!! Use test cards only. Set CARD_ENCRYPTION_KEYS and CARD_FINGERPRINT_SECRET to keep the key elsewhere;',
      '  !!! this store will refuse to start once a live key (svc_live_sk_) has been issued on it.',
    );
  }
  if (config.workers > 1 && !config.redisUrl) {
    banner.push('', `  Rate limits are counted per worker without REDIS_URL (up to ${config.workers}× the limit).`);
  }
  if (demo) {
    banner.push(
      '',
      '  Demo merchant created on this fresh store (shown once):',
      `    e-mail:   ${demo.email}`,
      `    password: ${demo.password}`,
      `    user id:  ${demo.userId}`,
      `    API key:  ${demo.apiKey}`,
      '',
      `  Try: curl -H 'X-API-Key: ${demo.apiKey}' ${url}/ping`,
    );
  }
  process.stderr.write(`${banner.join('\n')}\n`);
}
