import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { requestIdFor } from './request-id.js';

/** HTTP/1.1 requires Host (RFC 9112 3.2); Node's own refusal had no body or request id. */
export function hostHeaderCheck(request: FastifyRequest): void {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    throw new AppError('invalid_request', 'An HTTP/1.1 request needs a Host header');
  }
}

/** `Expect` other than 100-continue: Node's bare 417, in the contract's shape. */
export function answerExpectationFailed(request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify({
    error: 'expectation_failed',
    error_description: 'Only "Expect: 100-continue" is supported',
  });
  response.writeHead(417, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestIdFor(request),
    connection: 'close',
  });
  response.end(body);
}

/**
 * Once shutdown starts, requests still arriving on open connections get 503 `unavailable`
 * in the contract's shape (with `Connection: close`), so clients retry elsewhere, while
 * those already in flight finish.
 */
export function closingGate(): {
  start: () => Promise<void>;
  check: (request: FastifyRequest, reply: FastifyReply) => void;
} {
  let closing = false;
  return {
    start: async () => {
      closing = true;
    },
    check: (_request, reply) => {
      if (!closing) return;
      void reply.header('connection', 'close');
      throw new AppError('unavailable', 'The server is shutting down; retry', {
        headers: { 'retry-after': '1' },
      });
    },
  };
}
