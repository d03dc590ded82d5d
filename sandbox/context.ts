import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Challenges } from './challenges.js';
import type { CallbackSender } from './callbacks.js';
import type { Ledger } from './ledger.js';
import type { UpiCollects } from './upi-collects.js';
import type { Timers } from './util.js';

export type SandboxApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Everything the sandbox's routes share, built once by `startSandbox`. All state is in memory. */
export interface SandboxContext {
  /** Added to every processor answer. */
  latencyMs: number;
  upiCollectTtlSeconds: number;
  timers: Timers;
  callbacks: CallbackSender;
  ledgers: { acme: Ledger; globex: Ledger; wallet: Ledger };
  challenges: Challenges;
  collects: UpiCollects;
}
