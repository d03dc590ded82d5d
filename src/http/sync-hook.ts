import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * Hooks whose work is synchronous, in Fastify's callback form. Every answer runs the gateway's hooks, and
 * an async hook costs a promise and a microtask each time (docs/performance.md, "The relay's queue, hooks
 * without promises …"). A throw still becomes the request's error: Fastify catches it around the call.
 */
export function syncHook(work: (request: FastifyRequest, reply: FastifyReply) => void) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    work(request, reply);
    done();
  };
}

type SendDone<T> = (error: Error | null, payload?: T) => void;

/**
 * An onSend hook with asynchronous work for only some answers (an idempotency claim to store, a
 * deprecation to report): the others pass without a promise. The payload goes on unchanged.
 */
export function sendHookWhen(
  needed: (request: FastifyRequest) => boolean,
  work: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>,
) {
  return <T>(request: FastifyRequest, reply: FastifyReply, payload: T, done: SendDone<T>) => {
    if (!needed(request)) return done(null, payload);
    work(request, reply, payload).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  };
}
