import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseCallbackMode, type CallbackMode } from './callbacks.js';
import type { SandboxApp, SandboxContext } from './context.js';
import { SandboxError } from './util.js';

const MAX_HANG_MS = 600_000;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `X-Sandbox-Callback` of this request (checked by `processorHooks`). */
export function callbackMode(request: FastifyRequest): CallbackMode {
  return parseCallbackMode(header(request, 'x-sandbox-callback'));
}

function hangMs(request: FastifyRequest): number {
  const raw = header(request, 'x-sandbox-hang-ms');
  return raw !== undefined && /^\d{1,6}$/.test(raw) && Number(raw) <= MAX_HANG_MS ? Number(raw) : 0;
}

/**
 * Hooks of every processor API (acme, globex, wallet, UPI): the test-control headers are
 * checked up front, and the answer is held back by `latencyMs` plus `X-Sandbox-Hang-Ms`
 * (the work itself is already done and recorded, so a later status query finds it).
 */
export function processorHooks(scope: SandboxApp, ctx: SandboxContext): void {
  scope.addHook('onRequest', async (request) => {
    callbackMode(request);
    const hang = header(request, 'x-sandbox-hang-ms');
    if (hang !== undefined && hangMs(request) === 0 && hang !== '0') {
      throw new SandboxError(400, 'invalid_request', `X-Sandbox-Hang-Ms must be an integer from 0 to ${MAX_HANG_MS}`);
    }
  });
  // A bodiless POST (void, capture of the full amount) reads as an empty object.
  scope.addHook('preValidation', async (request) => {
    if (request.body === undefined) request.body = {};
  });
  scope.addHook('onSend', async (request, _reply, payload) => {
    await ctx.timers.sleep(ctx.latencyMs + hangMs(request));
    return payload;
  });
}

/** Runs `task` once the answer has gone out (or the caller gave up), so callbacks follow the answer. */
export function afterAnswer(reply: FastifyReply, task: () => void): void {
  reply.raw.once('close', task);
}
