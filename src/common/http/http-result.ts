/**
 * What an idempotent handler returns instead of sending: the status (201, 202, 200...),
 * headers such as Location, and the body. The Idempotency-Key interceptor stores and sends it.
 */
export interface HttpResult<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
}
