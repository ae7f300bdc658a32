import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../errors/error-codes.js';
import { toErrorResponse } from '../errors/error-response.js';
import { writeRequestLine } from '../logging/one-line-request-log.js';
import { rawErrorAnswer } from './raw-answer.js';

/**
 * Fastify's `frameworkErrors`: the router's own failures (bad percent-encoding, an over-long
 * path parameter) arrive here before any hook runs. Answered like every other error.
 */
export function frameworkErrors(error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const response = toErrorResponse(error, request.id);
  void reply
    .status(response.status)
    .headers(response.headers)
    .header('x-request-id', request.id)
    .header('content-type', 'application/json; charset=utf-8')
    .send(response.body);
  writeRequestLine(undefined, request, reply);
}

/** Node's HTTP parser errors, by the code Node gives them. */
const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request was not received in time'],
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'The request line and headers exceed 16 KiB'],
  HPE_INVALID_CONTENT_LENGTH: ['invalid_request', 'Content-Length is not valid'],
  HPE_UNEXPECTED_CONTENT_LENGTH: ['invalid_request', 'Content-Length is not valid'],
};

/**
 * Fastify's `clientErrorHandler`: the request could not even be parsed, so there is no
 * request object; the answer is written to the socket, in the error shape
 * (docs/BEHAVIOUR.md#errors), with a fresh request id, and the connection is closed (its state is
 * unknown).
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, description] = CLIENT_ERRORS[error.code ?? ''] ?? [
    'invalid_request',
    'The request is not valid HTTP',
  ];
  if (socket.writable) socket.write(rawErrorAnswer(code, description, randomUUID()));
  socket.destroy(error);
}
