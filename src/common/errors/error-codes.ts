/** Every error code of CONTRACT section 1 with its HTTP status. The one place they meet. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  validation_failed: 400,
  invalid_client: 401,
  unauthenticated: 401,
  invalid_credentials: 401,
  scope_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  email_taken: 409,
  idempotency_key_in_use: 409,
  invalid_transition: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  unknown_product: 422,
  unknown_customer: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
