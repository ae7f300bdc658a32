// The reference of `npm run bench` (docs/BEHAVIOUR.md#performance): the service's hot paths
// with bare node:http + pg, over the service's own database (after its migrations and demo
// seed), doing the same SQL (bench/reference-sql.mjs) and answering the same JSON. No
// framework, no validation library, no auth, no rate limits: every request acts for
// TENANT_ID and APP_ID.
//
//   DATABASE_URL  TENANT_ID  APP_ID          required
//   PORT (3100)  HOST (127.0.0.1)  POOL_SIZE (10, the service's DB_POOL_SIZE default)
//   DATA_DIR      the service's; its secrets.json gives the pepper and the signing key
//   SECRET_PEPPER (base64) and JWT_SIGNING_KEY (PKCS#8 PEM) instead of DATA_DIR
//   PUBLIC_URL    token issuer and audience (pass the service's, for tokens of equal size)
//   ACCESS_TOKEN_TTL (3600)  IDEMPOTENCY_TTL_HOURS (24)
//   REFERENCE_PREPARED=1  named prepared statements (the service's TypeORM sends unnamed ones)
//
// GET /__bench/eld answers the event-loop delay since the last call (then resets it).
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  randomUUID,
  sign,
  timingSafeEqual,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { orderJson, productJson } from './reference-json.mjs';
import * as SQL from './reference-sql.mjs';

const env = process.env;
const PORT = Number(env.PORT ?? 3100);
const TENANT = Number(env.TENANT_ID);
const APP = Number(env.APP_ID);
if (!env.DATABASE_URL || !(TENANT > 0) || !(APP > 0)) {
  throw new Error('DATABASE_URL, TENANT_ID and APP_ID are required');
}
const ISSUER = env.PUBLIC_URL ?? `http://localhost:${PORT}`;
const TOKEN_TTL = Number(env.ACCESS_TOKEN_TTL ?? 3600);
const IDEMPOTENCY_TTL_HOURS = Number(env.IDEMPOTENCY_TTL_HOURS ?? 24);
const PREPARED = env.REFERENCE_PREPARED === '1';
const MAX_BODY = 1024 * 1024;

const stored = env.DATA_DIR
  ? JSON.parse(readFileSync(join(env.DATA_DIR, 'secrets.json'), 'utf8'))
  : {};
const PEPPER = Buffer.from(env.SECRET_PEPPER || stored.pepper, 'base64');
const PRIVATE_KEY = createPrivateKey(env.JWT_SIGNING_KEY || stored.signingKey);
const KID = thumbprint(PRIVATE_KEY); // src/auth/signing-keys.ts: RFC 7638 thumbprint

// The service's DataSource sets parseInt8: ids and minor units arrive as numbers.
pg.defaults.parseInt8 = true;
const pool = new pg.Pool({
  connectionString: env.DATABASE_URL,
  max: Number(env.POOL_SIZE ?? 10),
  application_name: 'bench-reference',
});
// An idle client's connection lost (the database restarted): pg-pool drops it and makes a
// new one on demand; without a listener the error would end the process.
pool.on('error', (error) =>
  console.error(`reference: idle database connection lost: ${error.message}`),
);
const eld = monitorEventLoopDelay({ resolution: 10 });
eld.enable();

const STATEMENTS = { ...SQL };

/** One statement; named (prepared once per connection) only with REFERENCE_PREPARED=1. */
function query(db, name, values) {
  const text = STATEMENTS[name];
  return db.query(PREPARED ? { name, text, values } : { text, values });
}

class HttpError extends Error {
  constructor(status, error, description, headers = {}) {
    super(description);
    Object.assign(this, { status, error, headers });
  }
}
const invalid = (description) => new HttpError(400, 'validation_failed', description);

function send(res, status, body, headers = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': randomUUID(),
    ...headers,
  });
  res.end(text);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () =>
      size > MAX_BODY
        ? reject(new HttpError(413, 'payload_too_large', 'body over 1 MiB'))
        : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

function parseJson(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'invalid_request', 'malformed JSON');
  }
}

// ---- GET /v1/orders/{id} --------------------------------------------------------------------

/** src/orders/orders.service.ts get(): the order with its lines, one statement. */
async function getOrder(res, idText) {
  if (!/^[1-9]\d{0,15}$/.test(idText)) throw invalid('id must be a positive integer');
  const id = Number(idText);
  const { rows } = await query(pool, 'ORDER_BY_ID', [TENANT, id]);
  if (rows.length === 0) throw new HttpError(404, 'not_found', `order ${id} not found`);
  send(res, 200, orderJson(rows[0], rows[0].items ?? []));
}

// ---- GET /v1/orders (page mode) ---------------------------------------------------------------

const STATUSES = ['pending', 'paid', 'preparing', 'shipped', 'cancelled', 'refunded'];

function intParam(params, name, fallback, max) {
  const value = params.get(name);
  if (value === null) return fallback;
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw invalid(`${name} must be an integer from 1 to ${max}`);
  }
  return Number(value);
}

/** src/orders/order-list-cursor.ts encodeOrderListCursor() */
function cursorOf(filters, last) {
  const document = { v: 1, s: '-created_at', f: filters, k: last.sort_key, i: last.id };
  return Buffer.from(JSON.stringify(document)).toString('base64url');
}

/** src/orders/order-list.service.ts list(): page and count at once, then the page's lines. */
async function listOrders(res, params) {
  const page = intParam(params, 'page', 1, Number.MAX_SAFE_INTEGER);
  const limit = intParam(params, 'limit', 20, 100);
  const status = params.get('status');
  if (status !== null && !STATUSES.includes(status)) throw invalid('status is not an order status');
  // Page 1 (the path the bench drives) is one statement with its lines and total, as in the
  // service; later pages are not part of the reference.
  if (page !== 1) throw invalid('the reference serves page 1 only');
  const { rows: pageRows } = await (status === null
    ? query(pool, 'LIST_PAGE_1', [TENANT, 0, TENANT, limit, 0, TENANT])
    : query(pool, 'LIST_PAGE_1_BY_STATUS', [
        TENANT,
        0,
        [status],
        TENANT,
        limit,
        0,
        status,
        TENANT,
      ]));
  const total = pageRows[0]?.total ?? 0;
  const hasMore = pageRows.length < total;
  const last = pageRows.at(-1);
  const filters = status === null ? {} : { status: [status] };
  send(res, 200, {
    data: pageRows.map((r) => orderJson(r, r.items ?? [])),
    meta: {
      page,
      limit,
      total,
      total_pages: Math.ceil(total / limit),
      next_cursor: last && hasMore ? cursorOf(filters, last) : null,
      has_more: hasMore,
    },
  });
}

// ---- POST /v1/orders with an Idempotency-Key ---------------------------------------------

const text = (value, max = 200) =>
  typeof value === 'string' && value.length >= 1 && value.length <= max;

function checkOrder(body) {
  const { customer: c, shipping_address: a, items } = body ?? {};
  if (!text(c?.name) || !text(c?.email, 254) || (c.phone !== undefined && !text(c.phone, 50))) {
    throw invalid('customer needs name and email');
  }
  if (!text(a?.country) || !text(a?.city) || !text(a?.address)) {
    throw invalid('shipping_address needs country, city and address');
  }
  if (!Array.isArray(items) || items.length < 1 || items.length > 100) {
    throw invalid('items must hold 1 to 100 lines');
  }
  for (const i of items) {
    if (!Number.isInteger(i?.product_id) || i.product_id < 1) throw invalid('bad product_id');
    if (!Number.isInteger(i.quantity) || i.quantity < 1 || i.quantity > 10000) {
      throw invalid('bad quantity');
    }
  }
}

/** src/idempotency/canonical-json.ts */
function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

async function createOrder(req, res) {
  const body = parseJson(await readBody(req));
  checkOrder(body);
  const header = req.headers['idempotency-key'];
  if (header !== undefined && !/^[\x20-\x7e]{1,255}$/.test(header)) {
    throw invalid('Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  if (header === undefined) throw invalid('the reference serves only idempotent creates');
  const scope = [TENANT, APP, 'POST', '/v1/orders', header];
  const requestHash = createHash('sha256').update(canonicalJson(body)).digest();

  const client = await pool.connect();
  let result;
  try {
    await client.query('START TRANSACTION');
    result = await idempotentCreate(client, scope, requestHash, body);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  const headers = { ...result.headers };
  if (result.replayed) headers['idempotent-replayed'] = 'true';
  send(res, result.status, result.body, headers);
}

/** src/idempotency/idempotency.interceptor.ts around src/orders/orders.service.ts create(). */
async function idempotentCreate(client, scope, requestHash, body) {
  const { rows: lock } = await query(client, 'IDEMPOTENCY_LOCK', [
    scope[0],
    JSON.stringify(scope.slice(1)),
  ]);
  if (!lock[0].locked) {
    throw new HttpError(409, 'idempotency_key_in_use', 'still being processed', {
      'retry-after': '1',
    });
  }
  const { rows: found } = await query(client, 'IDEMPOTENCY_FIND', scope);
  if (found.length > 0) {
    if (!found[0].request_hash.equals(requestHash)) {
      throw new HttpError(422, 'idempotency_key_reused', 'used with a different request body');
    }
    const { response_status, response_headers, response_body } = found[0];
    return {
      status: response_status,
      headers: response_headers,
      body: response_body,
      replayed: true,
    };
  }

  const productIds = [...new Set(body.items.map((i) => i.product_id))];
  const { rows: products } = await query(client, 'ACTIVE_PRODUCTS', [TENANT, productIds]);
  const byId = new Map(products.map((p) => [p.id, p]));
  if (body.items.some((i) => !byId.has(i.product_id))) {
    throw new HttpError(422, 'unknown_product', 'an order line names an unknown product');
  }
  // src/orders/orders.service.ts create(): stock only when a product tracks it.
  let moves = [];
  if (products.some((p) => p.inventory_tracked)) {
    const units = new Map();
    for (const item of body.items) {
      units.set(item.product_id, (units.get(item.product_id) ?? 0) + item.quantity);
    }
    const ids = [...units.keys()].sort((a, b) => a - b);
    const { rows: moved } = await query(client, 'STOCK_MOVE', [
      TENANT,
      ids,
      ids.map((id) => units.get(id)),
      false,
    ]);
    if (moved.some((m) => m.before < m.quantity)) {
      throw new HttpError(422, 'insufficient_stock', 'short of stock');
    }
    moves = moved;
  }
  const held = new Set(moves.map((m) => m.id));
  let total = 0;
  const lines = body.items.map((item) => {
    const p = byId.get(item.product_id);
    const lineTotal = p.price_minor * item.quantity;
    total += lineTotal;
    const stockHeld = held.has(item.product_id) ? item.quantity : 0;
    return { ...item, sku: p.sku, name: p.name, unit: p.price_minor, total: lineTotal, stockHeld };
  });
  const c = body.customer;
  const a = body.shipping_address;
  const { rows } = await query(client, 'ORDER_WRITE', [
    TENANT,
    c.id === undefined ? 'email' : 'id',
    c.id ?? null,
    c.id === undefined ? c.email : null,
    total,
    c.name,
    c.email,
    c.phone ?? null,
    a.country,
    a.city,
    a.district ?? null,
    a.address,
    a.postal_code ?? null,
    'api',
    null,
    null,
    APP,
    'pending',
    lines.map((_, i) => i + 1),
    lines.map((l) => l.product_id),
    lines.map((l) => l.sku),
    lines.map((l) => l.name),
    lines.map((l) => l.quantity),
    lines.map((l) => l.unit),
    lines.map((l) => l.total),
    lines.map((l) => l.stockHeld),
  ]);
  const order = orderJson(rows[0].order, rows[0].items);
  const json = JSON.stringify(order);
  // src/products/product-events.ts inventoryChanged(): one per product, after order.created.
  const stockEvents = moves.map((m) =>
    JSON.stringify({
      object: productJson(m.after, m.currency),
      previous_available: m.before,
      reason: 'order',
      order_id: order.id,
    }),
  );
  const eventData = [`{"object":${json}}`, ...stockEvents];
  await query(client, 'EVENT_APPEND', [
    TENANT,
    ['order.created', ...moves.map(() => 'product.inventory_changed')],
    [null, ...moves.map(() => null)],
    [order.id, ...moves.map(() => null)],
    eventData,
    eventData.map((data) => Buffer.byteLength(data)),
  ]);
  const headers = { location: `/v1/orders/${order.id}` };
  await query(client, 'IDEMPOTENCY_SAVE', [
    ...scope,
    requestHash,
    201,
    json,
    JSON.stringify(headers),
    IDEMPOTENCY_TTL_HOURS,
  ]);
  return { status: 201, headers, body: json, replayed: false };
}

// ---- POST /builders/oauth/token ---------------------------------------------------------------

/** src/auth/credentials-state.service.ts: apps by client_id, cached after the first load. */
const apps = new Map();

async function appByClientId(clientId) {
  if (!apps.has(clientId)) {
    const { rows } = await query(pool, 'APP_BY_CLIENT_ID', [clientId]);
    if (rows[0]) apps.set(clientId, rows[0]);
    return rows[0];
  }
  return apps.get(clientId);
}

function thumbprint(privateKey) {
  const { crv, kty, x, y } = createPublicKey(privateKey).export({ format: 'jwk' });
  return createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
}

const b64url = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** ES256 as jsonwebtoken makes it: header {alg, typ, kid}, raw r||s signature. */
function signJwt(claims) {
  const input = `${b64url({ alg: 'ES256', typ: 'at+jwt', kid: KID })}.${b64url(claims)}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: PRIVATE_KEY,
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}

const invalidClient = () => new HttpError(401, 'invalid_client', 'Client authentication failed');

/** src/oauth/token-endpoint.service.ts token() and src/auth/access-token-issuer.service.ts. */
async function issueToken(req, res) {
  const raw = await readBody(req);
  const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  const p = (form ? Object.fromEntries(new URLSearchParams(raw)) : parseJson(raw)) ?? {};
  if (typeof p.grant_type !== 'string') {
    throw new HttpError(400, 'invalid_request', 'grant_type is required');
  }
  if (p.grant_type !== 'client_credentials') {
    throw new HttpError(400, 'unsupported_grant_type', 'only client_credentials');
  }
  if (!p.client_id || !p.client_secret) {
    throw new HttpError(400, 'invalid_request', 'client_id and client_secret are required');
  }
  if (!/^app_[A-Za-z0-9_-]{1,60}$/.test(p.client_id)) throw invalidClient();
  const app = await appByClientId(p.client_id);
  const presented = createHmac('sha256', PEPPER).update(p.client_secret, 'utf8').digest();
  const matches =
    app?.secretHash.length === presented.length && timingSafeEqual(presented, app.secretHash);
  if (!app?.active || !matches) throw invalidClient();
  const scopes = [
    ...new Set(
      String(p.scope ?? '')
        .split(' ')
        .filter(Boolean),
    ),
  ];
  if (scopes.length === 0) throw new HttpError(400, 'invalid_request', 'scope is required');
  if (scopes.some((s) => !app.approvedScopes.includes(s))) {
    throw new HttpError(400, 'invalid_scope', 'the requested scope is not approved for the app');
  }
  const jti = randomUUID();
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + TOKEN_TTL;
  await query(pool, 'APP_TOKEN_INSERT', [
    jti,
    app.tenantId,
    app.id,
    scopes,
    app.credentialsVersion,
    iat,
    exp,
  ]);
  const scope = scopes.join(' ');
  const accessToken = signJwt({
    iss: ISSUER,
    aud: ISSUER,
    sub: app.clientId,
    client_id: app.clientId,
    tid: app.tenantId,
    app: app.id,
    scope,
    jti,
    iat,
    exp,
    cv: app.credentialsVersion,
  });
  send(
    res,
    200,
    { access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_TTL, scope },
    { 'cache-control': 'no-store', pragma: 'no-cache' },
  );
}

// ---- routing -------------------------------------------------------------------------------

function eventLoopDelay(res) {
  const body = { p50_ms: eld.percentile(50) / 1e6, p99_ms: eld.percentile(99) / 1e6 };
  body.max_ms = eld.max / 1e6;
  eld.reset();
  send(res, 200, body);
}

async function route(req, res) {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  if (path === '/v1/orders') {
    if (req.method === 'GET')
      return listOrders(res, new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1)));
    if (req.method === 'POST') return createOrder(req, res);
  }
  if (req.method === 'GET' && path.startsWith('/v1/orders/')) {
    return getOrder(res, path.slice('/v1/orders/'.length));
  }
  if (req.method === 'POST' && path === '/builders/oauth/token') return issueToken(req, res);
  if (req.method === 'GET' && path === '/health/ready') return send(res, 200, { status: 'ok' });
  if (req.method === 'GET' && path === '/__bench/eld') return eventLoopDelay(res);
  throw new HttpError(404, 'not_found', 'no such route');
}

const server = createServer((req, res) => {
  route(req, res).catch((error) => {
    if (error instanceof HttpError) {
      return send(
        res,
        error.status,
        { error: error.error, error_description: error.message },
        error.headers,
      );
    }
    console.error(error);
    send(res, 500, { error: 'internal_error', error_description: 'unexpected error' });
  });
});
server.keepAliveTimeout = 72_000;

server.listen(PORT, env.HOST ?? '127.0.0.1', () => {
  console.log(`reference listening on ${PORT}, pool ${pool.options.max}, prepared ${PREPARED}`);
});

const shutdown = () => {
  server.close(() => void pool.end().finally(() => process.exit(0)));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 3_000).unref();
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
