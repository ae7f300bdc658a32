import type { ErrorCode } from './error-codes.js';

/**
 * One entry of `details`: these two keys (docs/BEHAVIOUR.md#errors); say more in the message.
 * `insufficient_stock` adds the figures of the short line.
 */
export interface ErrorDetail {
  field: string;
  message: string;
  product_id?: number;
  requested?: number;
  available?: number;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Headers the response must carry (WWW-Authenticate, Retry-After, ...). */
  headers?: Record<string, string>;
  /** `precondition_failed`: the resource's version now, a top-level field of the body. */
  currentVersion?: number;
}

/**
 * A failure the client can act on, with a stable code from error-codes.ts
 * (docs/BEHAVIOUR.md#errors). Domain code throws these; the global filter turns them into
 * responses.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly description: string,
    readonly options: AppErrorOptions = {},
  ) {
    super(description);
    this.name = 'AppError';
  }
}
