import { HttpException } from '@nestjs/common';
import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { AppError, type ErrorDetail } from './app-error.js';
import { ERROR_STATUS, type ErrorCode } from './error-codes.js';

export interface ErrorBody {
  error: ErrorCode;
  error_description: string;
  details?: ErrorDetail[];
  /** `precondition_failed` only: the version `If-Match` should have named. */
  current_version?: number;
  request_id?: string;
}

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
  /** True when the cause is ours (5xx): it must be logged with its stack. */
  unexpected: boolean;
}

const STATUS_CODE: Partial<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  408: 'request_timeout',
  414: 'uri_too_long',
  431: 'headers_too_large',
  401: 'unauthenticated',
  403: 'scope_denied',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

/** Fastify's own errors, reworded: their messages name internals ("FST_ERR_..."). */
const FASTIFY_ERRORS: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [
    'payload_too_large',
    'Request body is too large (1 MiB at most; 4 KiB on the token endpoint)',
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    'unsupported_media_type',
    'Request body must be application/json',
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_request', 'Request body is empty but declared as JSON'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['invalid_request', 'Content-Length does not match the body'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_request', 'Request body is not valid JSON'],
  FST_ERR_BAD_URL: ['invalid_request', 'The URL is not valid percent-encoding'],
  FST_ERR_MAX_PARAM_LENGTH: ['uri_too_long', 'A path segment of the URL is too long'],
};

/** Codes of node-postgres / PostgreSQL meaning "the database is not reachable". */
const DATABASE_DOWN = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  // The database itself is gone (dropped, or not created yet): unusable, not our bug.
  '3D000',
]);

/**
 * Maps anything thrown while serving a request to the error response of docs/BEHAVIOUR.md#errors.
 */
export function toErrorResponse(error: unknown, requestId: string): ErrorResponse {
  if (error instanceof AppError) {
    return respond(error.code, error.description, {
      details: error.options.details,
      headers: error.options.headers,
      currentVersion: error.options.currentVersion,
    });
  }
  const known = fromFrameworkError(error);
  if (known) return known;
  // Class 22, data exceptions: a value PostgreSQL cannot store (bad encoding, out of range).
  // Validation should have caught it; if not, it is still the client's value, not our fault.
  const sqlState = pgCode(error);
  if (sqlState?.startsWith('22')) {
    return respond('validation_failed', 'A value in the request cannot be stored');
  }
  // 23514: a CHECK constraint refused a value. Validation mirrors the CHECKs; should one slip
  // through, it is still the client's value, never a 500.
  if (sqlState === '23514') {
    return respond('validation_failed', 'A value in the request is out of bounds');
  }
  if (isDatabaseDown(error)) {
    return respond('unavailable', 'The database is unavailable; retry later', {
      headers: { 'retry-after': '5' },
    });
  }
  // 57014: the statement ran past the request pool's deadline (DB_STATEMENT_TIMEOUT_MS) and
  // PostgreSQL cancelled it; its transaction rolled back, nothing is held or half-written.
  if (sqlState === '57014') {
    return respond(
      'unavailable',
      'The request took longer than its database deadline and was cancelled; narrow it ' +
        '(a time range, a status, cursor mode instead of a deep page) or retry later',
      { headers: { 'retry-after': '5' } },
    );
  }
  // 40P01, 40001: PostgreSQL aborted the transaction for a deadlock or a serialization
  // conflict with a concurrent one. Nothing was written; a retry runs on the new state. Logged
  // as unexpected all the same: the service takes its locks in one order, so it is a bug.
  if (sqlState === '40P01' || sqlState === '40001') {
    const conflict = respond(
      'unavailable',
      'The request conflicted with a concurrent one and was rolled back; retry it',
      { headers: { 'retry-after': '1' } },
    );
    return { ...conflict, unexpected: true };
  }
  const response = respond('internal_error', 'An unexpected error occurred', { requestId });
  return { ...response, unexpected: true };
}

function fromFrameworkError(error: unknown): ErrorResponse | undefined {
  // Nest wraps Fastify's 4xx errors (body parser, body limit) and keeps the original as cause.
  if (error instanceof HttpException && error.cause instanceof Error) {
    const unwrapped = fromFastifyError(error.cause);
    if (unwrapped) return unwrapped;
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = STATUS_CODE[status];
    if (!code) return undefined;
    const description = status === 404 ? describeNotFound(error.message) : error.message;
    return respond(code, description);
  }
  return error instanceof Error ? fromFastifyError(error) : undefined;
}

function fromFastifyError(error: Error): ErrorResponse | undefined {
  const { code, statusCode } = error as Error & { code?: string; statusCode?: number };
  const fastify = code ? FASTIFY_ERRORS[code] : undefined;
  if (fastify) return respond(fastify[0], fastify[1]);
  // The JSON parser's SyntaxError carries statusCode 400.
  if (error instanceof SyntaxError && statusCode === 400) {
    return respond('invalid_request', 'Request body is not valid JSON');
  }
  if (statusCode && statusCode >= 400 && statusCode < 500) {
    const mapped = STATUS_CODE[statusCode] ?? 'invalid_request';
    return respond(mapped, error.message);
  }
  return undefined;
}

function describeNotFound(message: string): string {
  const route = /^Cannot (\w+) (.*)$/.exec(message);
  return route ? `No route matches ${route[1]} ${route[2].split('?')[0]}` : message;
}

function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export function isDatabaseDown(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // TypeORM releases a unit's connection when the server ends it (a restart, a failover);
  // the unit's next statement then finds it released. Leftover work of ours that outlived
  // its unit has its own error (UnitOfWorkEndedError) and stays a 500.
  if (
    error instanceof QueryRunnerAlreadyReleasedError ||
    error instanceof QueryRunnerProviderAlreadyReleasedError
  ) {
    return true;
  }
  // TypeORM wraps the driver's error; the driver's own may carry the sign.
  const driverError = (error as Error & { driverError?: unknown }).driverError;
  return [error, driverError].some((e) => e instanceof Error && saysConnectionLost(e));
}

/**
 * node-postgres' signs of a connection that is gone or cannot be had: an SQLSTATE of class 08
 * or a shutdown/admin code, a socket error, or its own messages (a client whose server ended
 * it mid-checkout is "not queryable"; these carry no code).
 */
function saysConnectionLost(error: Error): boolean {
  const code = (error as Error & { code?: string }).code;
  // Class 08: connection exceptions; class 53: the server lacks resources (53300: too many
  // connections, as when instances are added past max_connections).
  if (code && (DATABASE_DOWN.has(code) || code.startsWith('08') || code.startsWith('53'))) {
    return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|is not queryable|Query read timeout/.test(
    error.message,
  );
}

function respond(
  code: ErrorCode,
  description: string,
  extra: {
    details?: ErrorDetail[];
    headers?: Record<string, string>;
    currentVersion?: number;
    requestId?: string;
  } = {},
): ErrorResponse {
  const body: ErrorBody = { error: code, error_description: description };
  if (extra.details) body.details = extra.details;
  if (extra.currentVersion !== undefined) body.current_version = extra.currentVersion;
  if (extra.requestId) body.request_id = extra.requestId;
  return { status: ERROR_STATUS[code], headers: extra.headers ?? {}, body, unexpected: false };
}
