import { STATUS_CODES } from 'node:http';
import { ERROR_STATUS, type ErrorCode } from '../errors/error-codes.js';

/**
 * A whole HTTP/1.1 error response as text, in the error shape of docs/BEHAVIOUR.md#errors, for the
 * few answers written straight to a socket (no request reached Fastify); the connection then
 * closes.
 */
export function rawErrorAnswer(code: ErrorCode, description: string, requestId: string): string {
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ error: code, error_description: description });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}
