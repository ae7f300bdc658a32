/**
 * What an idempotent handler's answer is: the status (201, 202, 200...), headers such as
 * Location, and the body. The Idempotency-Key interceptor stores and sends it.
 */
export interface HttpResult<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

/**
 * A handler's answer whose status or headers are decided at run time (202 for a new import,
 * 200 for a repeat). Returned instead of the bare body by a route whose `@Idempotent()`
 * interceptor sends it; a class, so that no body is ever mistaken for one.
 */
export class HttpAnswer<T = unknown> implements HttpResult<T> {
  constructor(
    readonly status: number,
    readonly body: T,
    readonly headers: Record<string, string> = {},
  ) {}
}
