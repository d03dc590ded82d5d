import { startSandbox } from './server.js';

/**
 * `node dist/sandbox/main.js`: the sandbox network on its own. Configuration from the
 * environment: SANDBOX_PORT (8090), SANDBOX_HOST (127.0.0.1), SANDBOX_PUBLIC_URL, GATEWAY_URL
 * (http://127.0.0.1:8080), CALLBACK_SIGNING_SECRET (required), SANDBOX_LATENCY_MS (0),
 * UPI_COLLECT_TTL_SECONDS (300).
 */
function readEnv(env: NodeJS.ProcessEnv) {
  const problems: string[] = [];
  const read = (name: string) => (env[name]?.trim() ? env[name].trim() : undefined);
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    return Number(raw);
  };
  const url = (name: string, fallback?: string) => {
    const raw = read(name) ?? fallback;
    if (raw !== undefined && !/^https?:\/\/[^\s]+$/.test(raw))
      problems.push(`${name} must be an http or https URL (got "${raw}")`);
    return raw;
  };
  const options = {
    port: integer('SANDBOX_PORT', 8090, 0, 65535),
    host: read('SANDBOX_HOST') ?? '127.0.0.1',
    publicUrl: url('SANDBOX_PUBLIC_URL'),
    gatewayUrl: url('GATEWAY_URL', 'http://127.0.0.1:8080')!,
    callbackSecret: read('CALLBACK_SIGNING_SECRET') ?? '',
    latencyMs: integer('SANDBOX_LATENCY_MS', 0, 0, 600_000),
    upiCollectTtlSeconds: integer('UPI_COLLECT_TTL_SECONDS', 300, 1, 86_400),
  };
  if (!options.callbackSecret)
    problems.push('CALLBACK_SIGNING_SECRET is required (the gateway must share it to verify callbacks)');
  return { options, problems };
}

async function main(): Promise<void> {
  const { options, problems } = readEnv(process.env);
  if (problems.length > 0) {
    process.stderr.write(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  const sandbox = await startSandbox(options);
  process.stderr.write(
    `sandbox acquirer network listening on ${sandbox.url}, callbacks to ${options.gatewayUrl}\n` +
      '  state is kept in memory: a restart forgets every payment and callback\n',
  );
  const stop = async () => {
    await sandbox.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`sandbox failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
