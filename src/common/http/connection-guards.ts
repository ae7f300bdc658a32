import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { rawErrorAnswer } from './raw-answer.js';
import { requestIdFor } from './request-id.js';

/**
 * RFC 9112 3.2: an HTTP/1.1 request without Host, and any request with more than one, is a
 * 400 (Node's own refusal had no body or request id). Node keeps only the first of several
 * Host lines in `headers`, so they are counted in `rawHeaders`.
 */
export function hostHeaderCheck(request: FastifyRequest): void {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    throw new AppError('invalid_request', 'An HTTP/1.1 request needs a Host header');
  }
  if (hostLines(request.raw.rawHeaders) > 1) {
    throw new AppError('invalid_request', 'A request must have exactly one Host header');
  }
}

/** Header lines named Host (any case): `raw` alternates names and values. */
function hostLines(raw: string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  return count;
}

/** `Expect` other than 100-continue: Node's bare 417, in the service's error shape. */
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

/** How long a refused CONNECT's socket may linger for the client to read the answer. */
const CONNECT_LINGER_MS = 5_000;

/**
 * CONNECT asks for a tunnel: Node hands it to a 'connect' listener and, without one, drops
 * the socket unanswered. This server is no proxy and no route matches the method, so it is
 * answered like any unknown route (404 `not_found`, as for a method a path lacks) and closed.
 */
export function answerConnect(request: IncomingMessage, socket: Duplex): void {
  // Node no longer watches this socket: its errors and its end are ours to handle.
  socket.on('error', () => socket.destroy());
  const linger = setTimeout(() => socket.destroy(), CONNECT_LINGER_MS).unref();
  socket.on('close', () => clearTimeout(linger));
  socket.end(
    rawErrorAnswer(
      'not_found',
      'No route matches CONNECT: this server is not a proxy',
      requestIdFor(request),
    ),
  );
}

/**
 * Once shutdown starts, requests still arriving on open connections get 503 `unavailable`
 * in the service's error shape (with `Connection: close`), so clients retry elsewhere, while
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
