// The SQL of the service's hot paths, statement for statement, for bench/reference-server.mjs.
// Each constant names the service file it mirrors: when the service's SQL changes, change the
// constant here (and the parameter list where it is used) so the ratio keeps comparing the
// same database work. Parameter numbers are those the service sends for these requests.

/** src/orders/orders.repository.ts COLUMNS, qualified by `o` (O_COLUMNS). */
const O_COLUMNS = `o.id, o.version, o.status, o.fulfillment_status, o.currency, o.total_minor,
  o.refunded_minor, o.customer_id, o.customer_name, o.customer_email, o.customer_phone,
  o.shipping_country, o.shipping_city, o.shipping_district, o.shipping_address,
  o.shipping_postal_code, o.source, o.marketplace, o.external_order_id, o.note, o.tags,
  o.metadata, o.cancel_reason, o.cancel_note, o.cancelled_at, o.created_at, o.updated_at`;

/** src/orders/order-list.sql.ts ORDER_ITEMS_JSON: the order's lines as one JSON array. */
const ORDER_ITEMS_JSON = `(SELECT json_agg(i ORDER BY i.line_no) FROM (
    SELECT id, order_id, line_no, product_id, sku, name, quantity, unit_price_minor, total_minor,
      fulfilled_quantity, refunded_quantity
    FROM order_items WHERE tenant_id = o.tenant_id AND order_id = o.id) AS i) AS items`;

// ---- GET /v1/orders/{id} ----------------------------------------------------------------

/** src/orders/orders.repository.ts findWithItems() with a tenant scope: $1 tenant, $2 id. */
export const ORDER_BY_ID = `SELECT ${O_COLUMNS}, ${ORDER_ITEMS_JSON} FROM orders o WHERE o.tenant_id = $1 AND o.id = $2`;

// ---- GET /v1/orders (page mode, sort -created_at) ---------------------------------------

/** src/orders/order-counts.sql.ts countExpression(): $1 tenant, $2 customer (0: all)[, $3 statuses]. */
const countExpression = (byStatus) => {
  const where = `tenant_id = $1 AND customer_id = $2${byStatus ? ' AND status = ANY($3::text[])' : ''}`;
  return `((SELECT coalesce(sum(count), 0) FROM order_counts WHERE ${where})
    + (SELECT coalesce(sum(delta), 0) FROM order_count_deltas WHERE ${where}))::bigint`;
};

/** src/orders/order-list.sql.ts orderListSql() with its total, as the service runs page 1. */
const page1 = (byStatus) => {
  const [tenant, limit, offset, status, join] = byStatus ? [4, 5, 6, 7, 8] : [3, 4, 5, 0, 6];
  return `SELECT ${O_COLUMNS},
      to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_key,
      ${ORDER_ITEMS_JSON}, (SELECT ${countExpression(byStatus)} AS total) AS total
      FROM (SELECT id FROM orders WHERE tenant_id = $${tenant}${byStatus ? ` AND status = $${status}` : ''} ORDER BY created_at DESC, id DESC LIMIT $${limit} OFFSET $${offset}) AS page JOIN orders o ON o.tenant_id = $${join} AND o.id = page.id
      ORDER BY o.created_at DESC, o.id DESC`;
};

/** Page 1 without a filter: $1 tenant, $2 0, $3 tenant, $4 limit, $5 offset 0, $6 tenant. */
export const LIST_PAGE_1 = page1(false);

/** Page 1 of one status: $1 tenant, $2 0, $3 {status}, $4 tenant, $5 limit, $6 0, $7 status, $8 tenant. */
export const LIST_PAGE_1_BY_STATUS = page1(true);

// ---- POST /v1/orders with an Idempotency-Key (one transaction) ---------------------------

/** src/idempotency/idempotency.repository.ts tryLock(): $1 tenant, $2 the rest of the scope as JSON. */
export const IDEMPOTENCY_LOCK =
  'SELECT pg_try_advisory_xact_lock(hashtextextended($2, $1)) AS locked';

/** src/idempotency/idempotency.repository.ts find(): $1..$5 the key's scope. */
export const IDEMPOTENCY_FIND = `WITH expired AS (
         DELETE FROM idempotency_keys WHERE tenant_id = $1 AND app_id = $2 AND method = $3
           AND path = $4 AND key = $5 AND expires_at <= now())
       SELECT request_hash, response_status, response_body, response_headers FROM idempotency_keys
         WHERE tenant_id = $1 AND app_id = $2 AND method = $3 AND path = $4 AND key = $5
           AND expires_at > now()`;

/** src/orders/order-catalog.repository.ts activeProducts(): $1 tenant, $2 product ids. */
export const ACTIVE_PRODUCTS = `SELECT id, sku, name, price_minor, inventory_tracked FROM products
       WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active`;

/**
 * src/products/stock.repository.ts move(), for an API order (`take`): $1 tenant, $2 product
 * ids ascending, $3 units per id, $4 false (short products refuse the order).
 */
export const STOCK_MOVE = `WITH w AS (SELECT * FROM unnest($2::bigint[], $3::bigint[]) AS w(id, quantity)),
       locked AS (
         SELECT p.id, p.available FROM products p
         WHERE p.tenant_id = $1 AND p.id = ANY($2::bigint[]) AND p.inventory_tracked
         ORDER BY p.id FOR NO KEY UPDATE),
       short AS (
         SELECT 1 FROM locked l JOIN w ON w.id = l.id
         WHERE NOT $4::boolean AND l.available < w.quantity),
       moved AS (
         UPDATE products p SET available = p.available - w.quantity, version = p.version + 1,
           updated_at = clock_timestamp()
         FROM w
         WHERE p.tenant_id = $1 AND p.id = w.id AND p.id IN (SELECT id FROM locked)
           AND NOT EXISTS (SELECT 1 FROM short)
         RETURNING p.*)
       SELECT l.id, l.available AS before, w.quantity, row_to_json(m) AS after, t.currency
       FROM locked l JOIN w ON w.id = l.id JOIN tenants t ON t.id = $1
         LEFT JOIN moved m ON m.id = l.id
       ORDER BY l.id`;

/**
 * src/orders/order-writer.ts write(): customer link, currency, order and lines in one
 * statement. $1 tenant, $2 link kind, $3 customer id, $4 email, $5 total, $6..$8 customer,
 * $9..$13 shipping, $14 source, $15 marketplace, $16 external id, $17 app, $18 status,
 * $19..$26 the lines as arrays.
 */
export const ORDER_WRITE = `WITH linked AS (
           SELECT CASE $2::text
             WHEN 'id' THEN $3::bigint
             WHEN 'id-or-email' THEN COALESCE(
               (SELECT id FROM customers WHERE tenant_id = $1 AND id = $3::bigint),
               (SELECT id FROM customers
                WHERE tenant_id = $1 AND lower(email) = lower($4) AND email_verified))
             ELSE (SELECT id FROM customers
                   WHERE tenant_id = $1 AND lower(email) = lower($4) AND email_verified)
           END AS customer_id),
         o AS (
           INSERT INTO orders (tenant_id, currency, total_minor, customer_id, customer_name,
             customer_email, customer_phone, shipping_country, shipping_city, shipping_district,
             shipping_address, shipping_postal_code, source, marketplace, external_order_id,
             app_id, status)
           SELECT $1, t.currency, $5, linked.customer_id, $6, $7, $8, $9, $10, $11, $12, $13,
             $14, $15, $16, $17, $18
           FROM tenants t, linked WHERE t.id = $1
           RETURNING *),
         i AS (
           INSERT INTO order_items (tenant_id, order_id, line_no, product_id, sku, name,
             quantity, unit_price_minor, total_minor, stock_held)
           SELECT o.tenant_id, o.id, l.line_no, l.product_id, l.sku, l.name, l.quantity,
             l.unit_price, l.total, l.stock_held
           FROM o, unnest($19::smallint[], $20::bigint[], $21::text[], $22::text[], $23::int[],
             $24::bigint[], $25::bigint[], $26::int[])
             AS l(line_no, product_id, sku, name, quantity, unit_price, total, stock_held)
           RETURNING id, order_id, line_no, product_id, sku, name, quantity, unit_price_minor,
             total_minor, fulfilled_quantity, refunded_quantity)
         SELECT row_to_json(o) AS order,
           (SELECT json_agg(i ORDER BY i.line_no) FROM i) AS items
         FROM o`;

/** src/outbox/outbox.repository.ts append(): $1 tenant, $2..$6 arrays of type, app, order, data, size. */
export const EVENT_APPEND = `INSERT INTO events (tenant_id, type, app_id, order_id, data, size)
       SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::jsonb[], $6::int[])`;

/**
 * src/idempotency/idempotency.repository.ts save(): $1..$5 the scope, $6 request hash, $7 status,
 * $8 body, $9 headers, $10 TTL hours.
 */
export const IDEMPOTENCY_SAVE = `INSERT INTO idempotency_keys
         (tenant_id, app_id, method, path, key, request_hash, response_status, response_body, response_headers, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(hours => $10))`;

// ---- POST /builders/oauth/token -----------------------------------------------------------

/**
 * src/auth/credentials-state.service.ts load(): the app by client_id. The service serves it
 * from its in-memory credentials cache after the first request, and so does the reference.
 */
export const APP_BY_CLIENT_ID = `SELECT a.id, a.tenant_id AS "tenantId", a.client_id AS "clientId", a.active,
              a.credentials_version AS "credentialsVersion", a.approved_scopes AS "approvedScopes",
              a.secret_hash AS "secretHash"
       FROM apps a WHERE a.client_id = $1`;

/** src/auth/access-token-issuer.service.ts issueAppToken(): the token is recorded (revocation). */
export const APP_TOKEN_INSERT = `INSERT INTO app_tokens (jti, tenant_id, app_id, scopes, credentials_version, issued_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, to_timestamp($6), to_timestamp($7))`;
