/**
 * Every error code with its HTTP status and when it is sent, the HTTP layer's own refusals
 * (408, 414, 417, 431) included (docs/BEHAVIOUR.md#errors). The one place they meet; the
 * README's error table and the OpenAPI enum are generated from it.
 */
export const ERRORS = {
  invalid_request: {
    status: 400,
    when: 'malformed JSON or URL; token endpoint: `grant_type`, `client_id`, `client_secret` or `scope` missing or repeated, or client credentials sent both in the body and in a Basic header',
  },
  unsupported_grant_type: { status: 400, when: '`grant_type` is not `client_credentials`' },
  invalid_scope: { status: 400, when: "a requested scope is not in the app's approved scopes" },
  validation_failed: {
    status: 400,
    when: 'body, query or path parameter fails validation (wrong type, out of bounds, unknown enum value, unknown property, a repeated query parameter); `details` names each field',
  },
  invalid_grant: {
    status: 400,
    when: 'a customer refresh token that is unknown, expired, already rotated or ended',
  },
  invalid_ticket: {
    status: 400,
    when: 'an email-verification or password-reset token that is unknown, used, expired, superseded or of another tenant',
  },
  invalid_client: {
    status: 401,
    when: 'unknown `client_id`, wrong secret or inactive app (`WWW-Authenticate: Basic realm="oauth"` when Basic was used)',
  },
  unauthenticated: {
    status: 401,
    when: 'bearer token missing, malformed, badly signed, expired, revoked or no longer valid (`WWW-Authenticate: Bearer`); tokens in the query string are never accepted',
  },
  invalid_credentials: {
    status: 401,
    when: 'customer login with an unknown email or a wrong password (the same answer for both)',
  },
  scope_denied: {
    status: 403,
    when: 'a valid token without the scope, or the wrong kind of token (a customer session on an app route or the reverse); `WWW-Authenticate: Bearer error="insufficient_scope"`',
  },
  not_found: {
    status: 404,
    when: 'unknown route, or a resource that does not exist or belongs to another tenant or customer (never 403 for these)',
  },
  request_timeout: { status: 408, when: 'the request did not arrive in time' },
  email_taken: { status: 409, when: 'register with an email already registered in this tenant' },
  idempotency_key_in_use: {
    status: 409,
    when: 'a request with the same Idempotency-Key is still being processed',
  },
  invalid_transition: {
    status: 409,
    when: 'an order status change, or an order operation (cancel, fulfillment, refund), not allowed in the order’s current status',
  },
  sku_taken: { status: 409, when: 'a product created with a sku the tenant already has' },
  cursor_expired: { status: 410, when: 'an events cursor older than the retention' },
  precondition_failed: {
    status: 412,
    when: '`If-Match` names a version that is not the order’s or product’s current one; the answer carries the current `ETag` and a top-level `current_version`, and nothing is written',
  },
  payload_too_large: {
    status: 413,
    when: 'body over 1 MiB (4 KiB on the token endpoint)',
  },
  uri_too_long: { status: 414, when: 'the URL or one of its path segments is too long' },
  unsupported_media_type: {
    status: 415,
    when: 'a body that is not JSON (the token endpoint also takes form-urlencoded)',
  },
  expectation_failed: { status: 417, when: 'an `Expect` header other than `100-continue`' },
  idempotency_key_reused: {
    status: 422,
    when: 'Idempotency-Key reused with a different request body',
  },
  unknown_product: {
    status: 422,
    when: "an order line names a product that is not in this tenant's active catalog (`details` lists them)",
  },
  insufficient_stock: {
    status: 422,
    when: 'an order line asks for more of a tracked product than is available (`details`: `product_id`, `requested`, `available` per short line); nothing is written',
  },
  exceeds_refundable: {
    status: 422,
    when: 'a refund larger than what is left to refund, or a line quantity beyond what is left of that line',
  },
  exceeds_unfulfilled: {
    status: 422,
    when: 'a fulfillment line quantity beyond what is left unfulfilled of that line',
  },
  unknown_customer: {
    status: 422,
    when: '`customer.id` is given but is not a customer of this tenant',
  },
  rate_limited: {
    status: 429,
    when: 'a limit is exceeded (a rate, or requests in progress of an app or tenant); `Retry-After` seconds, plus `RateLimit-Policy` and `RateLimit`',
  },
  headers_too_large: { status: 431, when: 'the request headers are too large' },
  internal_error: {
    status: 500,
    when: 'anything unexpected; the body carries `request_id`, the log carries the cause',
  },
  unavailable: {
    status: 503,
    when: 'the database is unreachable, a statement ran past its deadline (`DB_STATEMENT_TIMEOUT_MS`), or the instance is shutting down; `Retry-After` seconds',
  },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Code → HTTP status. */
export const ERROR_STATUS = Object.fromEntries(
  Object.entries(ERRORS).map(([code, { status }]) => [code, status]),
) as { [C in ErrorCode]: (typeof ERRORS)[C]['status'] };
