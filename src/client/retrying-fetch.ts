/** A `fetch` that takes a Request, as openapi-fetch calls it. */
export type RequestFetch = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** A longer `Retry-After` is not waited for: the response is returned (default 60 s). */
  maxWaitSeconds?: number;
  /** Waits `ms`; replaceable in tests. */
  sleep?: (ms: number) => Promise<void>;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Retries what the service asks to retry, after the `Retry-After` it sends. A 429 was refused
 * before any work, so it is always retried. A 503 may come after work began, so only requests
 * that are safe to repeat are: idempotent methods, and writes carrying an Idempotency-Key
 * (the service replays their first result).
 */
export function retryingFetch(next: RequestFetch, options: RetryOptions = {}): RequestFetch {
  const maxRetries = options.maxRetries ?? 2;
  const maxWaitSeconds = options.maxWaitSeconds ?? 60;
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      // A body can be sent once: every attempt sends a copy.
      const response = await next(request.clone());
      const wait = retryAfterSeconds(response);
      if (attempt >= maxRetries || wait === undefined || wait > maxWaitSeconds) return response;
      if (!retryable(request, response.status)) return response;
      await response.body?.cancel();
      await sleep(wait * 1000);
    }
  };
}

function retryable(request: Request, status: number): boolean {
  if (status === 429) return true;
  if (status !== 503) return false;
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has('idempotency-key');
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined without one. */
export function retryAfterSeconds(response: Response): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const value = response.headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
