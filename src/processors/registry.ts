import { createCardProcessor } from './card-processor.js';
import type { Processor } from './types.js';
import { createUpiPsp } from './upi-psp.js';

/** The card processors and how each answers an authorization (shown in the API reference). */
export const CARD_PROCESSORS = {
  acme: 'synchronous',
  globex: 'asynchronous: pending, then settled by callback',
} as const;

export type CardProcessorName = keyof typeof CARD_PROCESSORS;

/** Processors keyed by their path segment (`/payments/creditCard/{name}/{id}`). */
export function createProcessorRegistry(sandboxUrl: string, timeoutMs: number) {
  const processors = new Map<string, Processor & { close(): Promise<void> }>(
    (Object.keys(CARD_PROCESSORS) as CardProcessorName[]).map((name) => [
      name,
      createCardProcessor(name, sandboxUrl, timeoutMs),
    ]),
  );
  const upi = createUpiPsp(sandboxUrl, timeoutMs);
  // The wallet processor: a processor like the card ones for every follow-up, never a card failover.
  const wallet = createCardProcessor('wallet', sandboxUrl, timeoutMs);
  return {
    /** The UPI PSP (collect and intent payments). */
    upi,
    get(name: string): Processor | undefined {
      return name === wallet.name ? wallet : processors.get(name);
    },
    /** The other card processor, for the one failover attempt of the h2h path. */
    alternative(name: string): Processor | undefined {
      return [...processors.values()].find((p) => p.name !== name);
    },
    async close() {
      await Promise.all([...processors.values(), upi, wallet].map((p) => p.close()));
    },
  };
}

export type ProcessorRegistry = ReturnType<typeof createProcessorRegistry>;
