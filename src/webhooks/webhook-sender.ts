import http from 'node:http';
import https from 'node:https';
import {
  checkTargetUrl,
  guardedLookup,
  RefusedTarget,
  type TargetPolicy,
} from './webhook-target.js';

export interface SendLimits extends TargetPolicy {
  timeoutMs: number;
}

export type SendOutcome =
  { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

/** Response bodies are read at most this far, then the connection is dropped. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** Idle connections kept per receiving host, and how long one may idle before it is closed. */
const FREE_SOCKETS_PER_HOST = 16;
const IDLE_SOCKET_MS = 4000;

/**
 * Connections are kept alive and reused per host: a busy endpoint costs one TCP (and TLS)
 * handshake per burst, not one per delivery. A connection is only ever made through the
 * address guard, so a reused one goes to an address that was checked when it was made.
 * No cap on sockets per host: the attempt slots cap concurrency, and a cap here would let
 * one tenant's silent endpoint queue another tenant's deliveries to the same host. One agent
 * per protocol and policy: a connection made under one policy never serves another.
 */
const agents = new Map<string, http.Agent>();

function agentFor(protocol: string, policy: TargetPolicy): http.Agent {
  const key = `${protocol}${policy.allowPrivateNetworks}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = {
      keepAlive: true,
      maxFreeSockets: FREE_SOCKETS_PER_HOST,
      timeout: IDLE_SOCKET_MS,
    };
    agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * One POST of a webhook. Success is any 2xx answered within the time limit; redirects are
 * not followed (a 3xx is a failure); the host is resolved through the address guard, so a
 * name that now points at a private address is refused before connecting. A kept-alive
 * connection the receiver closed meanwhile (reset before any answer) is replaced by a new
 * one once, within the same time limit. Never throws.
 */
export function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  limits: SendLimits,
): Promise<SendOutcome> {
  let url: URL;
  try {
    url = checkTargetUrl(target, limits);
  } catch (error) {
    return Promise.resolve({ ok: false, statusCode: null, error: describe(error, limits) });
  }
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const send = (agent: http.Agent | false): Promise<SendOutcome> =>
    new Promise((resolve) => {
      const client = url.protocol === 'https:' ? https : http;
      let answered = false;
      const request = client.request(
        url,
        {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'storefront-webhooks/1',
          },
          lookup: guardedLookup(limits),
          signal,
          agent,
        },
        (response) => {
          answered = true;
          const statusCode = response.statusCode ?? 0;
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_RESPONSE_BYTES) response.destroy();
          });
          const settle = () =>
            resolve(
              statusCode >= 200 && statusCode < 300
                ? { ok: true, statusCode }
                : { ok: false, statusCode, error: `HTTP ${statusCode}` },
            );
          response.on('end', settle);
          response.on('close', settle);
          response.on('error', () => undefined);
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (agent && !answered && request.reusedSocket && isStaleConnection(error)) {
          resolve(send(false));
        } else {
          resolve({ ok: false, statusCode: null, error: describe(error, limits) });
        }
      });
      request.end(body);
    });
  return send(agentFor(url.protocol, limits));
}

/** How a kept-alive connection that the other side had closed fails on reuse. */
function isStaleConnection(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ECONNRESET' || error.code === 'EPIPE';
}

/** A short reason for the delivery log: never a response body, never a stack. */
function describe(error: unknown, limits: SendLimits): string {
  if (error instanceof RefusedTarget) return `refused: ${error.message}`;
  const e = error as NodeJS.ErrnoException & { cause?: unknown };
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') {
    return `no answer within ${limits.timeoutMs / 1000} s`;
  }
  if (e?.cause instanceof RefusedTarget) return `refused: ${e.cause.message}`;
  return e?.code ? `connection failed (${e.code})` : 'connection failed';
}
