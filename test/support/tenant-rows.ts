import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { within } from './eventually.js';

/**
 * Rows of one tenant, written through a repository spec's inspection connection (outside
 * the audit): the arrangement of two-tenant specs. Each returns the new row's id (an
 * event's seq).
 */
/**
 * An app of the tenant. `id` reuses another tenant's app id (ids are unique per tenant only),
 * so that only the tenant tells the two apart.
 */
export async function insertApp(
  inspect: DataSource,
  tenantId: number,
  { scopes = ['orders:read'], id }: { scopes?: string[]; id?: number } = {},
): Promise<number> {
  const rows: Array<{ id: number }> = await inspect.query(
    `WITH directory AS (INSERT INTO app_clients (tenant_id, client_id) VALUES ($1, $2))
     INSERT INTO apps (tenant_id, id, name, client_id, secret_hash, secret_last4, approved_scopes)
     OVERRIDING SYSTEM VALUE
     VALUES ($1, coalesce($4::bigint, nextval(pg_get_serial_sequence('apps', 'id'))), 'app', $2,
       '\\x00', 'abcd', $3)
     RETURNING id`,
    [tenantId, `client_${randomUUID()}`, scopes, id ?? null],
  );
  return rows[0].id;
}

/** A customer, unverified unless `verified` says otherwise. */
export async function insertCustomer(
  inspect: DataSource,
  tenantId: number,
  email: string,
  { passwordHash = 'hash-1', verified = false }: { passwordHash?: string; verified?: boolean } = {},
): Promise<number> {
  const rows: Array<{ id: number }> = await inspect.query(
    `INSERT INTO customers (tenant_id, name, email, password_hash, email_verified)
     VALUES ($1, 'C', $2, $3, $4) RETURNING id`,
    [tenantId, email, passwordHash, verified],
  );
  return rows[0].id;
}

/** A live session (an hour left) unless `expiresIn` says otherwise. */
export async function insertSession(
  inspect: DataSource,
  tenantId: number,
  customerId: number,
  appId: number,
  expiresIn = '1 hour',
): Promise<string> {
  const rows: Array<{ id: string }> = await inspect.query(
    `INSERT INTO customer_sessions (id, tenant_id, customer_id, app_id, scopes, expires_at)
     VALUES ($1, $2, $3, $4, '{}', now() + $5::interval) RETURNING id`,
    [randomUUID(), tenantId, customerId, appId, expiresIn],
  );
  return rows[0].id;
}

export async function insertEndpoint(
  inspect: DataSource,
  tenantId: number,
  appId: number,
  eventTypes: string[] = ['order.created'],
): Promise<number> {
  const rows: Array<{ id: number }> = await inspect.query(
    `INSERT INTO webhook_endpoints (tenant_id, app_id, url, event_types, secret_ciphertext, created_at)
     VALUES ($1, $2, 'https://example.com/hook', $3, '\\x01', now() - interval '1 minute')
     RETURNING id`,
    [tenantId, appId, eventTypes],
  );
  return rows[0].id;
}

export async function insertEvent(
  inspect: DataSource,
  tenantId: number,
  type = 'order.created',
  createdAt = 'now()',
): Promise<number> {
  const rows: Array<{ seq: number }> = await inspect.query(
    `INSERT INTO events (tenant_id, type, data, created_at)
     VALUES ($1, $2, '{"object": {}}', ${createdAt}) RETURNING seq`,
    [tenantId, type],
  );
  return rows[0].seq;
}

/** A pending delivery due now, not in line, unless `set` (SQL assignments) says otherwise. */
export async function insertDelivery(
  inspect: DataSource,
  tenantId: number,
  endpointId: number,
  eventSeq: number,
  set = '',
): Promise<number> {
  const rows: Array<{ id: number }> = await inspect.query(
    `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_seq, next_attempt_at)
     VALUES ($1, $2, $3, now()) RETURNING id`,
    [tenantId, endpointId, eventSeq],
  );
  if (set) {
    await inspect.query(`UPDATE webhook_deliveries SET ${set} WHERE id = $1`, [rows[0].id]);
  }
  return rows[0].id;
}

/** One row of `table` by id, as it is now. */
export async function rowOf<T = Record<string, unknown>>(
  inspect: DataSource,
  table: string,
  id: number | string,
): Promise<T | undefined> {
  const rows: T[] = await inspect.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  return rows[0];
}

export async function addProduct(
  db: DataSource,
  tenantId: number,
  sku: string,
  { priceMinor = 1000, active = true } = {},
): Promise<number> {
  const [row] = await db.query<Array<{ id: number }>>(
    `INSERT INTO products (tenant_id, sku, name, price_minor, active)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [tenantId, sku, `Product ${sku}`, priceMinor, active],
  );
  return row.id;
}

export interface OrderRowInput {
  status?: string;
  email?: string;
  customerId?: number | null;
  marketplace?: string;
  externalOrderId?: string;
  createdAt?: string;
  updatedAt?: string;
  /** One line of this product. */
  productId?: number;
}

/** An order with one line (of `productId`, else a line without a product). */
export async function addOrder(
  db: DataSource,
  tenantId: number,
  o: OrderRowInput = {},
): Promise<number> {
  const [row] = await db.query<Array<{ id: number }>>(
    `INSERT INTO orders (tenant_id, status, currency, total_minor, customer_id, customer_name,
       customer_email, shipping_country, shipping_city, shipping_address, source, marketplace,
       external_order_id, created_at, updated_at)
     VALUES ($1, $2, 'EUR', 500, $3, 'Buyer', $4, 'TR', 'Istanbul', 'Street 1', $5, $6, $7,
       coalesce($8::timestamptz, now()), coalesce($9::timestamptz, $8::timestamptz, now()))
     RETURNING id`,
    [
      tenantId,
      o.status ?? 'pending',
      o.customerId ?? null,
      o.email ?? 'buyer@example.com',
      o.marketplace === undefined ? 'api' : 'marketplace',
      o.marketplace ?? null,
      o.externalOrderId ?? null,
      o.createdAt ?? null,
      o.updatedAt ?? null,
    ],
  );
  await db.query(
    `INSERT INTO order_items (tenant_id, order_id, line_no, product_id, sku, name, quantity,
       unit_price_minor, total_minor)
     VALUES ($1, $2, 1, $3, 'SKU', 'Line', 1, 500, 500)`,
    [tenantId, row.id, o.productId ?? null],
  );
  return row.id;
}

/**
 * Waits until the log's horizon has passed every event written so far: the feed and the
 * dispatcher serve an event once every transaction below it has ended, in the whole cluster
 * (other spec files' open transactions included).
 */
export async function untilEventsVisible(inspect: DataSource): Promise<void> {
  await within(30_000, async () => {
    const [{ visible }] = await inspect.query<Array<{ visible: boolean }>>(
      `SELECT coalesce(max(txid) < pg_snapshot_xmin(pg_current_snapshot()), true) AS visible
       FROM events`,
    );
    return visible;
  });
}
