import { startStripeSimulator } from '../simulators/stripe/index.js';

/**
 * The Stripe contract simulator as a process of its own for the bench (`node dist/bench/stripe-simulator.js`),
 * so its CPU is metered apart from the gateway's and the load generator's. Env: STRIPE_SIMULATOR_PORT.
 * On SIGTERM it says how many payments it holds and how many exchanges broke Stripe's document.
 */
async function main(): Promise<void> {
  const sim = await startStripeSimulator({ host: '127.0.0.1', port: Number(process.env.STRIPE_SIMULATOR_PORT ?? 0) });
  process.stderr.write(`stripe simulator listening on ${sim.url}\n`);
  const stop = async () => {
    const first = sim.violations[0];
    process.stderr.write(
      `stripe simulator: ${sim.ledger().length} payments, ${sim.violations.length} contract violations` +
        `${first ? ` (first: ${first.direction} ${first.operation}: ${first.errors.join('; ')})` : ''}\n`,
    );
    await sim.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`stripe simulator failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
