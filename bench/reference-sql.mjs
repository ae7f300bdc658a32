// The SQL of the service's hot paths, statement for statement, for bench/reference-server.mjs.
// Each constant names the service file it mirrors: when the service's SQL changes, change the
// constant here (and the parameter list where it is used) so the ratio keeps comparing the
// same database work. Parameter numbers are those the service sends for these requests.

/** src/orders/orders.repository.ts ORDER_COLUMNS */
const ORDER_COLUMNS = `id, status, currency, total_minor, customer_id, customer_name, customer_email,
  customer_phone, shipping_country, shipping_city, shipping_district, shipping_address,
  shipping_postal_code, source, marketplace, external_order_id, created_at, updated_at`;

// ---- GET /v1/orders/{id} ----------------------------------------------------------------

/** src/orders/orders.repository.ts find() with a tenant scope: $1 tenant, $2 id. */
export const ORDER_BY_ID = `SELECT ${ORDER_COLUMNS} FROM orders WHERE tenant_id = $1 AND id = $2`;

/** src/orders/orders.repository.ts items(): $1 tenant, $2 order ids. Also used by the list. */
export const ITEMS_OF_ORDERS = `SELECT order_id, line_no, product_id, sku, name, quantity, unit_price_minor, total_minor
       FROM order_items WHERE tenant_id = $1 AND order_id = ANY($2::bigint[]) ORDER BY order_id, line_no`;

// ---- GET /v1/orders (page mode, sort -created_at) ---------------------------------------

/** The list's select (src/orders/order-list-query.ts orderListSql()). */
const LIST_SELECT = `SELECT ${ORDER_COLUMNS},
    to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort_key
    FROM orders WHERE`;

/** src/orders/order-list-query.ts orderListSql(), no filter: $1 tenant, $2 limit + 1, $3 offset. */
export const LIST_PAGE = `${LIST_SELECT} tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`;

/** The same with one status: $1 tenant, $2 status, $3 limit + 1, $4 offset. */
export const LIST_PAGE_BY_STATUS = `${LIST_SELECT} tenant_id = $1 AND status = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`;

/** src/orders/order-list-query.ts orderCountSql(), no filter: $1 tenant. */
export const LIST_COUNT = `SELECT count(*)::int AS total FROM orders WHERE tenant_id = $1`;

/** The same with one status: $1 tenant, $2 status. */
export const LIST_COUNT_BY_STATUS = `SELECT count(*)::int AS total FROM orders WHERE tenant_id = $1 AND status = $2`;

// ---- POST /v1/orders with an Idempotency-Key (one transaction) ---------------------------

/** src/idempotency/idempotency.store.ts tryLock(): $1 lock id (sha256 of the scope). */
export const IDEMPOTENCY_LOCK = 'SELECT pg_try_advisory_xact_lock($1) AS locked';

/** src/idempotency/idempotency.store.ts find(), first statement: $1..$5 the key's scope. */
export const IDEMPOTENCY_DELETE_EXPIRED = `DELETE FROM idempotency_keys WHERE tenant_id = $1 AND app_id = $2 AND method = $3 AND path = $4
         AND key = $5 AND expires_at <= now()`;

/** src/idempotency/idempotency.store.ts find(), second statement: $1..$5 the key's scope. */
export const IDEMPOTENCY_FIND = `SELECT request_hash, response_status, response_body, response_headers FROM idempotency_keys
         WHERE tenant_id = $1 AND app_id = $2 AND method = $3 AND path = $4 AND key = $5`;

/** src/orders/orders.repository.ts activeProducts(): $1 tenant, $2 product ids. */
export const ACTIVE_PRODUCTS = `SELECT id, sku, name, price_minor FROM products WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active`;

/**
 * src/orders/order-writer.ts write(): customer link, currency, order and lines in one
 * statement. $1 tenant, $2 link kind, $3 customer id, $4 email, $5 total, $6..$8 customer,
 * $9..$13 shipping, $14 source, $15 marketplace, $16 external id, $17 app, $18 status,
 * $19..$25 the lines as arrays.
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
             quantity, unit_price_minor, total_minor)
           SELECT o.tenant_id, o.id, l.line_no, l.product_id, l.sku, l.name, l.quantity,
             l.unit_price, l.total
           FROM o, unnest($19::smallint[], $20::bigint[], $21::text[], $22::text[], $23::int[],
             $24::bigint[], $25::bigint[]) AS l(line_no, product_id, sku, name, quantity, unit_price, total)
           RETURNING order_id, line_no, product_id, sku, name, quantity, unit_price_minor, total_minor)
         SELECT row_to_json(o) AS order,
           (SELECT json_agg(i ORDER BY i.line_no) FROM i) AS items
         FROM o`;

/** src/events/event-log.ts append(), one event: $1..$5 arrays of tenant, type, app, order, data. */
export const EVENT_APPEND = `INSERT INTO events (tenant_id, type, app_id, order_id, data)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::jsonb[])`;

/**
 * src/idempotency/idempotency.store.ts save(): $1..$5 the scope, $6 request hash, $7 status,
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
