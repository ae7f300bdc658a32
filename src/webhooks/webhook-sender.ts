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

/**
 * One POST of a webhook. Success is any 2xx answered within the time limit; redirects are
 * not followed (a 3xx is a failure); the host is resolved through the address guard, so a
 * name that now points at a private address is refused before connecting. Never throws.
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
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
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
        signal: AbortSignal.timeout(limits.timeoutMs),
        agent: false,
      },
      (response) => {
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
    request.on('error', (error) =>
      resolve({ ok: false, statusCode: null, error: describe(error, limits) }),
    );
    request.end(body);
  });
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
