import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

/**
 * Rows of one tenant, arranged through a spec's own connection (outside the service's paths)
 * for the two-tenant repository specs.
 */

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

export async function addCustomer(
  db: DataSource,
  tenantId: number,
  email: string,
  verified = true,
): Promise<number> {
  const [row] = await db.query<Array<{ id: number }>>(
    `INSERT INTO customers (tenant_id, name, email, password_hash, email_verified)
     VALUES ($1, $2, $2, 'x', $3) RETURNING id`,
    [tenantId, email, verified],
  );
  return row.id;
}

/** An app of the tenant; `id` reuses another tenant's app id (ids are unique per tenant only). */
export async function addApp(db: DataSource, tenantId: number, id?: number): Promise<number> {
  const values = [tenantId, `app_${randomUUID()}`];
  const [row] = await db.query<Array<{ id: number }>>(
    id === undefined
      ? `INSERT INTO apps (tenant_id, name, client_id, secret_hash, secret_last4, approved_scopes)
         VALUES ($1, 'App', $2, '\\x00', 'abcd', '{}') RETURNING id`
      : `INSERT INTO apps (tenant_id, id, name, client_id, secret_hash, secret_last4,
           approved_scopes)
         OVERRIDING SYSTEM VALUE
         VALUES ($1, $3, 'App', $2, '\\x00', 'abcd', '{}') RETURNING id`,
    id === undefined ? values : [...values, id],
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
