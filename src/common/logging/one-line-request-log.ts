import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One log line per request, written when it completes: method, URL without query values,
 * remote address (the `req` serializer), status, response time and the request id (the
 * child logger's `reqId`). Fastify's default also writes an "incoming request" line, twice
 * the logging cost for nothing a completion line lacks. Other Fastify lines are unchanged.
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (!this.isLogDisabled(request)) writeRequestLine(error, request, reply);
  }
}

/**
 * The request line. Also called by `frameworkErrors`: Fastify reports no completion for a
 * request its router refused (its response time then reads 0: nothing timed it).
 */
export function writeRequestLine(
  error: Error | null | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const line = { req: request, res: reply, responseTime: reply.elapsedTime };
  if (error) reply.log.error({ ...line, err: error }, 'request errored');
  else reply.log.info(line, 'request completed');
}
