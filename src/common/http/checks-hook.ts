import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** A check of a request before its handler: returns to let it pass, throws to answer. */
export type RequestCheck = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * The checks, in order, as one callback-style Fastify hook: on the hot path every request
 * passes them, and one synchronous hook costs no promise or microtask per check.
 */
export function checksHook(
  ...checks: RequestCheck[]
): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  return (request, reply, done) => {
    try {
      for (const check of checks) check(request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}
