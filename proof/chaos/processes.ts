import { spawn, type ChildProcess } from 'node:child_process';
import { processEnv, ROOT, startGatewayProcess, type GatewayProcess } from '../../test/helpers/processes.js';

export { freePort } from '../../src/lib/free-port.js';

/** The sandbox network as its own process (`node dist/sandbox/main.js`): its ledger outlives every gateway crash. */
export async function startSandboxProcess(env: {
  port: number;
  gatewayUrl: string;
  secret: string;
}): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['dist/sandbox/main.js'], {
    cwd: ROOT,
    env: processEnv({
      SANDBOX_PORT: String(env.port),
      SANDBOX_HOST: '127.0.0.1',
      GATEWAY_URL: env.gatewayUrl,
      CALLBACK_SIGNING_SECRET: env.secret,
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited (${code}): ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${env.port}`,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The gateway as `node dist/src/main.js` on a fixed port, so clients and the sandbox find it again
 * after every `kill -9`. Its log (stdout) is kept across lives for the card-data scan.
 */
export class GatewayLives {
  private current?: GatewayProcess;
  private logs = '';
  apiKey = '';
  /** The demo merchant's owner as the banner names them (a development store seeds it). */
  demo?: { email: string; password: string; userId: number; apiKey: string };
  /** Set once the demo key was rotated through the API: the banner's key is then a replaced one. */
  rotatedKey?: string;
  lives = 0;
  /** When each life was ready to answer (ms since epoch). */
  readonly readyAt: number[] = [];
  /** Lives that ended without being killed or stopped: exit code and the end of their output. */
  readonly crashes: string[] = [];

  constructor(private readonly env: Record<string, string>) {}

  get down(): boolean {
    return this.current === undefined;
  }

  get url(): string {
    return `http://127.0.0.1:${this.env.PORT}`;
  }

  async start(): Promise<void> {
    const life = await startGatewayProcess(this.env);
    this.current = life;
    this.lives++;
    // A death nobody asked for is a finding; the gateway is started again so the load can go on.
    void life.exited.then(async (code) => {
      if (this.current !== life) return;
      this.current = undefined;
      this.logs += life.stdout() + life.stderr();
      const errors = life
        .stdout()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
      const stderr = life
        .stderr()
        .split(/\n\s*Try: .*\n|API reference: .*\n/)
        .pop()!
        .trim();
      this.crashes.push(
        `exit ${code}; stderr: ${stderr.replace(/\s*\n\s*/g, ' ⏎ ').slice(0, 500) || '(nothing)'}; last error logged: ${(errors.pop() ?? '(none)').slice(0, 300)}`,
      );
      await this.restartLikeASupervisor();
    });
    this.readyAt.push(Date.now());
    if (life.banner.demo) {
      this.demo = life.banner.demo;
      // A key rotated through the API since outlives the banner of the first start.
      this.apiKey = this.rotatedKey ?? life.banner.demo.apiKey;
    }
  }

  /** Starts it again every half second until it comes up (as systemd's Restart=always would), for a minute at most. */
  private async restartLikeASupervisor(): Promise<void> {
    for (let tries = 0; tries < 120; tries++) {
      try {
        return await this.start();
      } catch {
        await new Promise((wake) => setTimeout(wake, 500));
      }
    }
  }

  /** SIGKILL: no shutdown hook runs, in-flight requests and transactions die with the process. */
  async kill9(): Promise<void> {
    const life = this.current!;
    this.current = undefined;
    life.child.kill('SIGKILL');
    await life.exited;
    this.logs += life.stdout() + life.stderr();
  }

  async stop(): Promise<void> {
    const life = this.current;
    if (!life) return;
    this.current = undefined;
    life.child.kill('SIGTERM');
    await life.exited;
    this.logs += life.stdout() + life.stderr();
  }

  allLogs(): string {
    return this.logs + (this.current ? this.current.stdout() + this.current.stderr() : '');
  }
}
