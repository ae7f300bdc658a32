import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Printable token characters only and bounded, so a client cannot inject log lines. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Echo a sane incoming X-Request-Id, else generate one. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
