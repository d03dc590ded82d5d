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

/** The same for onSend, which passes the payload on unchanged. */
export function syncSendHook(work: (request: FastifyRequest, reply: FastifyReply) => void) {
  return <T>(request: FastifyRequest, reply: FastifyReply, payload: T, done: (error: null, payload: T) => void) => {
    work(request, reply);
    done(null, payload);
  };
}
