import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';
import type { DataSource } from 'typeorm';
import type { BodySpec } from './hostile-arbitraries.js';
import { isMalformedIdempotencyKey } from './hostile-arbitraries.js';

/**
 * Sending hostile requests and checking every answer against docs/BEHAVIOUR.md#errors and #limits.
 * The checks throw (fast-check reports the request that made them throw, shrunk, with its seed).
 */

export type HostileMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface HostileRequest {
  method: HostileMethod;
  /** Path and query string, encoded as sent. */
  path: string;
  headers: Record<string, string | undefined>;
  body?: BodySpec;
}

/** Headers a client must not set by hand: they frame the message itself. */
const FRAMING_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-connection',
]);

export function send(http: TestAgent, request: HostileRequest): Promise<Response> {
  const method = request.method.toLowerCase() as Lowercase<HostileMethod>;
  let call = http[method](request.path);
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || FRAMING_HEADERS.has(name.toLowerCase())) continue;
    call = call.set(name, value);
  }
  if (request.body) {
    const { text, contentType, encoding = 'utf8' } = request.body;
    if (contentType !== undefined) call = call.set('content-type', contentType);
    // The bytes as given: superagent would serialize a Buffer under a JSON Content-Type and
    // default a missing one to a form; the identity serializer stops both.
    call = call.serialize((data: unknown) => data as string).send(Buffer.from(text, encoding));
  }
  // Non-2xx answers resolve too; a broken response (invalid JSON) rejects the promise.
  return call.buffer(true).ok(() => true);
}

/** One line per request for failure messages: method, path, headers, body (JSON-escaped). */
export function describeRequest(request: HostileRequest): string {
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([, v]) => v !== undefined),
  );
  const body = request.body
    ? ` content-type=${JSON.stringify(request.body.contentType)}${request.body.encoding === 'latin1' ? ' (body bytes latin1)' : ''} body=${JSON.stringify(truncate(request.body.text, 600))}`
    : '';
  return `${request.method} ${truncate(request.path, 400)} headers=${JSON.stringify(headers)}${body}`;
}

function describeResponse(response: Response): string {
  return `${response.status} ${JSON.stringify(response.headers['content-type'])} ${truncate(
    response.text ?? '',
    600,
  )}`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}

class ContractViolation extends Error {
  constructor(problem: string, request: HostileRequest, response: Response) {
    super(
      `${problem}\n  request:  ${describeRequest(request)}\n  response: ${describeResponse(response)}`,
    );
    this.name = 'ContractViolation';
  }
}

const ERROR_KEYS = new Set(['error', 'error_description', 'details', 'request_id']);

/**
 * Internals an error body must never show: stack frames, file paths, SQL, driver and framework
 * error names. A match that the request itself contains (an echoed field name) does not count.
 */
const LEAKS: readonly RegExp[] = [
  /\bat [\w$.<>[\] ]+ \(/,
  /\bat (?:file:|node:|\/)[^\s)]*:\d+/,
  /node_modules/,
  /\/(?:src|dist|work|home|tmp)\//,
  /\.[cm]?[jt]s:\d+/,
  /\b(?:SELECT|INSERT|UPDATE|DELETE)\b[\s\S]{0,200}\b(?:FROM|INTO|SET|WHERE|VALUES)\b/i,
  /\b(?:QueryFailedError|TypeORMError|EntityNotFoundError|TypeError|ReferenceError|RangeError|SyntaxError|DatabaseError)\b/,
  /Cannot read propert|is not a function|is not iterable|undefined is not|Maximum call stack/,
  /\bFST_ERR_\w+|\bERR_[A-Z_]{3,}\b|\bHPE_\w+/,
  /relation "|violates|duplicate key|syntax error at|invalid input syntax|column "|pg_catalog|\bSQLSTATE\b/i,
  /\bclass-(?:validator|transformer)\b|\bNestJS?\b|\bfastify\b/i,
];

/** Everything the client sent, raw and percent-decoded, for telling echoes from leaks. */
function requestText(request: HostileRequest): string {
  const parts = [request.path, JSON.stringify(request.headers), request.body?.text ?? ''];
  const decoded = request.path.split(/[/?&=;]/).map((part) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      return part;
    }
  });
  return [...parts, ...decoded, JSON.stringify(decoded)].join('\n');
}

/**
 * docs/BEHAVIOUR.md#errors and #limits for any answer: never a 5xx; an X-Request-Id header; a 4xx
 * is JSON with `error` and `error_description` strings, optional `details` of `{field, message}`
 * strings, no other keys but `request_id`, and no internals.
 */
export function expectContractResponse(request: HostileRequest, response: Response): void {
  const fail = (problem: string): never => {
    throw new ContractViolation(problem, request, response);
  };
  if (response.status >= 500) fail(`status ${response.status} (a 5xx)`);
  const requestId = response.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId.length === 0) fail('no X-Request-Id header');
  // A sane incoming id is echoed (docs/BEHAVIOUR.md#requests-and-responses), except where Node's
  // parser refused the request before there was one to read (431).
  const incoming = request.headers['x-request-id'];
  if (
    incoming !== undefined &&
    /^[A-Za-z0-9-]{1,64}$/.test(incoming) &&
    response.status !== 431 &&
    requestId !== incoming
  ) {
    fail(`X-Request-Id ${JSON.stringify(incoming)} was not echoed`);
  }
  if (response.status < 400) return;

  const type: unknown = response.headers['content-type'];
  if (typeof type !== 'string' || !/^application\/json\b/i.test(type)) {
    fail('error response is not application/json');
  }
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return fail('error body is not JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    fail('error body is not a JSON object');
  }
  const error = body as Record<string, unknown>;
  // 412 precondition_failed alone adds the version If-Match should have named (CONTRACT 1).
  const allowed = (key: string) =>
    ERROR_KEYS.has(key) || (key === 'current_version' && error.error === 'precondition_failed');
  const extra = Object.keys(error).filter((key) => !allowed(key));
  if (extra.length > 0) fail(`error body has other keys: ${extra.join(', ')}`);
  if (error.error === 'precondition_failed') {
    const version = error.current_version;
    if (!Number.isSafeInteger(version) || (version as number) < 1) {
      fail('412 without a positive integer `current_version`');
    }
    if (response.headers.etag !== `"${String(version)}"`) fail('412 without the current ETag');
  }
  if (typeof error.error !== 'string' || !/^[a-z_]+$/.test(error.error)) {
    fail('`error` is not a snake_case string');
  }
  if (typeof error.error_description !== 'string') fail('`error_description` is not a string');
  if (error.request_id !== undefined && typeof error.request_id !== 'string') {
    fail('`request_id` is not a string');
  }
  if (error.details !== undefined) {
    if (!Array.isArray(error.details)) fail('`details` is not an array');
    // insufficient_stock adds the short line's figures (CONTRACT 1); nothing else adds keys.
    const keys =
      error.error === 'insufficient_stock'
        ? ['field', 'message', 'product_id', 'requested', 'available']
        : ['field', 'message'];
    for (const detail of error.details as unknown[]) {
      const d = detail as Record<string, unknown> | null;
      if (
        d === null ||
        typeof d !== 'object' ||
        Array.isArray(d) ||
        typeof d.field !== 'string' ||
        typeof d.message !== 'string' ||
        Object.keys(d).some((k) => !keys.includes(k)) ||
        keys.slice(2).some((k) => !Number.isSafeInteger(d[k]))
      ) {
        fail(`a detail is not {${keys.join(', ')}}: ${JSON.stringify(detail)}`);
      }
    }
  }
  const sent = requestText(request);
  for (const leak of LEAKS) {
    const match = leak.exec(response.text);
    if (match && !sent.includes(match[0])) fail(`error body leaks internals: ${match[0]}`);
  }
}

/** A 4xx status with this `error` code. */
export function expectError(
  request: HostileRequest,
  response: Response,
  status: number,
  code: string,
): void {
  const body = response.body as { error?: unknown } | undefined;
  if (response.status !== status || body?.error !== code) {
    throw new ContractViolation(`expected ${status} ${code}`, request, response);
  }
}

/**
 * docs/BEHAVIOUR.md#idempotency: an Idempotency-Key that is not 1–255 printable ASCII characters is
 * a 400.
 */
export function expectIdempotencyKeyVerdict(
  key: string | undefined,
  request: HostileRequest,
  response: Response,
): void {
  if (key !== undefined && isMalformedIdempotencyKey(key)) {
    expectError(request, response, 400, 'validation_failed');
  }
}

/** Row counts and state digests of everything a write route can write. */
export type WriteState = Record<string, string>;

export async function writeState(dataSource: DataSource): Promise<WriteState> {
  const [row] = (await dataSource.query(`
    SELECT
      (SELECT count(*) FROM orders)::text AS orders,
      (SELECT count(*) FROM order_items)::text AS order_items,
      (SELECT count(*) FROM order_status_changes)::text AS order_status_changes,
      (SELECT count(*) FROM customers)::text AS customers,
      (SELECT count(*) FROM customer_sessions)::text AS customer_sessions,
      (SELECT count(*) FROM customer_refresh_tokens)::text AS refresh_tokens,
      (SELECT md5(coalesce(string_agg(concat_ws(':', id, ended_at, idle_expires_at), ','
        ORDER BY id), '')) FROM customer_refresh_chains) AS refresh_chains,
      (SELECT count(*) FROM marketplace_imports)::text AS marketplace_imports,
      (SELECT count(*) FROM idempotency_keys)::text AS idempotency_keys,
      (SELECT count(*) FROM app_tokens)::text AS app_tokens,
      (SELECT count(*) FROM events)::text AS events,
      (SELECT md5(coalesce(string_agg(concat_ws(':', tenant_id, id, url, event_types, active,
        description, secret_ciphertext, updated_at), ',' ORDER BY tenant_id, id), ''))
        FROM webhook_endpoints) AS endpoint_states,
      (SELECT md5(coalesce(string_agg(concat_ws(':', tenant_id, id, status, updated_at, customer_id),
        ',' ORDER BY tenant_id, id), '')) FROM orders) AS order_states,
      (SELECT md5(coalesce(string_agg(concat_ws(':', tenant_id, id, name, email, phone,
        password_hash, updated_at), ',' ORDER BY tenant_id, id), '')) FROM customers) AS customer_states,
      (SELECT md5(coalesce(string_agg(concat_ws(':', id, revoked_at),
        ',' ORDER BY id), '')) FROM customer_sessions) AS session_states,
      (SELECT md5(coalesce(string_agg(concat_ws(':', tenant_id, id, status, attempts, updated_at),
        ',' ORDER BY tenant_id, id), '')) FROM marketplace_imports) AS import_states,
      (SELECT md5(coalesce(string_agg(concat_ws(':', tenant_id, id, sku, name, price_minor, active,
        inventory_tracked, available, version, updated_at), ',' ORDER BY tenant_id, id), ''))
        FROM products) AS product_states
  `)) as WriteState[];
  return row;
}

/** A rejected (4xx) request wrote nothing. */
export function expectNothingWritten(
  request: HostileRequest,
  response: Response,
  before: WriteState,
  after: WriteState,
): void {
  if (response.status < 400) return;
  const changed = Object.keys(before).filter((key) => before[key] !== after[key]);
  if (changed.length > 0) {
    const diff = changed.map((key) => `${key}: ${before[key]} → ${after[key]}`).join(', ');
    throw new ContractViolation(`a rejected request wrote: ${diff}`, request, response);
  }
}
