import { ConfigError, loadConfig } from './config.js';
import { startGateway } from './server.js';
import { cardKeyInStore } from './storage/secrets.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const gateway = await startGateway(config);
  // Graceful stop: refuse new connections, let in-flight requests finish, close storage, exit 0.
  // Installed before the banner, so a signal sent as soon as the banner appears is handled too.
  const stop = async (signal: string) => {
    gateway.app.log.info({ signal }, 'shutting down');
    try {
      await gateway.close();
      process.exit(0);
    } catch (error) {
      gateway.app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  const banner = [
    `svc-gateway ${config.env} listening on ${gateway.url} (public URL ${config.publicUrl})`,
    `  API reference: ${config.publicUrl}/docs`,
  ];
  if (cardKeyInStore(config)) {
    banner.push(
      '',
      '  !!! DEVELOPMENT SECRETS: the card encryption key is kept in this store (table system_secrets),',
      '  !!! next to the card numbers it encrypts: a dump or backup of this store decrypts them.',
      '  !!! Use test cards only. Set CARD_ENCRYPTION_KEYS and CARD_FINGERPRINT_SECRET to keep the key elsewhere;',
      '  !!! this store will refuse to start once a live key (svc_live_sk_) has been issued on it.',
    );
  }
  if (gateway.demo) {
    banner.push(
      '',
      '  Demo merchant created on this fresh store (shown once):',
      `    e-mail:   ${gateway.demo.email}`,
      `    password: ${gateway.demo.password}`,
      `    user id:  ${gateway.demo.userId}`,
      `    API key:  ${gateway.demo.apiKey}`,
      '',
      `  Try: curl -H 'X-API-Key: ${gateway.demo.apiKey}' ${gateway.url}/ping`,
    );
  }
  process.stderr.write(`${banner.join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`svc-gateway failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
