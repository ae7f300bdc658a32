import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { ProductInput } from './product-input.js';
import type { ProductListSpec } from './product-list.js';

export interface ProductRow {
  id: number;
  sku: string;
  name: string;
  /** Hundredths of the tenant currency. */
  price_minor: number;
  currency: string;
  active: boolean;
  inventory_tracked: boolean;
  available: number;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** The fields a `PATCH` may change. */
export type ProductChange = Pick<ProductRow, 'name' | 'price_minor' | 'active'>;

/** Every column of ProductRow from products `p` and tenants `t`. */
export const PRODUCT_COLUMNS = `p.id, p.sku, p.name, p.price_minor, t.currency, p.active,
  p.inventory_tracked, p.available, p.version, p.created_at, p.updated_at`;

/** The tenant's catalog. Every statement in the caller's unit of work. */
@Injectable()
export class ProductsRepository {
  /**
   * A list page by id, one more than `limit` (whether more follow); `count` also counts every
   * match (page mode). One after the other: an expensive request holds one connection at a
   * time (the caps on expensive requests count a place as a connection).
   */
  async list(
    db: TenantSql,
    spec: ProductListSpec,
    count: boolean,
  ): Promise<{ rows: ProductRow[]; total?: number }> {
    const params: unknown[] = [];
    const where = conditions(spec, params);
    const rows = await db.rows<ProductRow>(
      `SELECT ${PRODUCT_COLUMNS} FROM products p JOIN tenants t ON t.id = $1
       WHERE ${where.join(' AND ')}${spec.afterId === undefined ? '' : ` AND p.id > $${param(params, spec.afterId)}`}
       ORDER BY p.id LIMIT $${param(params, spec.limit + 1)} OFFSET $${param(params, spec.offset)}`,
      params,
    );
    if (!count) return { rows };
    const countParams: unknown[] = [];
    const [{ total }] = await db.rows<{ total: number }>(
      `SELECT count(*)::int AS total FROM products p WHERE ${conditions(spec, countParams).join(' AND ')}`,
      countParams,
    );
    return { rows, total };
  }

  find(db: TenantSql, id: number): Promise<ProductRow | undefined> {
    return db.first<ProductRow>(
      `SELECT ${PRODUCT_COLUMNS} FROM products p JOIN tenants t ON t.id = $1
       WHERE p.tenant_id = $1 AND p.id = $2`,
      [id],
    );
  }

  /** The product, its row locked until the unit of work ends: every change starts here. */
  lock(db: TenantSql, id: number): Promise<ProductRow | undefined> {
    return db.first<ProductRow>(
      `SELECT ${PRODUCT_COLUMNS} FROM products p JOIN tenants t ON t.id = $1
       WHERE p.tenant_id = $1 AND p.id = $2 FOR NO KEY UPDATE OF p`,
      [id],
    );
  }

  /** The new product; undefined when the tenant already has one with this sku. */
  insert(db: TenantSql, input: ProductInput): Promise<ProductRow | undefined> {
    return db.first<ProductRow>(
      `WITH p AS (
         INSERT INTO products (tenant_id, sku, name, price_minor, active, inventory_tracked, available)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT DO NOTHING
         RETURNING *)
       SELECT ${PRODUCT_COLUMNS} FROM p JOIN tenants t ON t.id = $1`,
      [
        input.sku,
        input.name,
        input.priceMinor,
        input.active ?? true,
        input.stock !== undefined,
        input.stock ?? 0,
      ],
    );
  }

  /** Name, price and active of a locked product; `version` + 1. */
  update(db: TenantSql, id: number, change: ProductChange): Promise<ProductRow> {
    return this.saved(
      db,
      `UPDATE products SET name = $3, price_minor = $4, active = $5, version = version + 1,
         updated_at = clock_timestamp()
       WHERE tenant_id = $1 AND id = $2 RETURNING *`,
      [id, change.name, change.price_minor, change.active],
    );
  }

  /** A locked product's stock set to `available` (tracking on); `version` + 1. */
  setStock(db: TenantSql, id: number, available: number): Promise<ProductRow> {
    return this.saved(
      db,
      `UPDATE products SET inventory_tracked = true, available = $3, version = version + 1,
         updated_at = clock_timestamp()
       WHERE tenant_id = $1 AND id = $2 RETURNING *`,
      [id, available],
    );
  }

  /**
   * Inserts or updates by sku, in one statement. `hasActiveColumn` false: existing products
   * keep their state (new ones are active). A row with `stock` turns tracking on with that
   * many available. Rows that change nothing are left alone (no new version). Per row
   * written: the product after, and before (null when inserted).
   */
  async upsert(
    db: TenantSql,
    rows: readonly ProductInput[],
    hasActiveColumn: boolean,
  ): Promise<Array<{ after: ProductRow; before: ProductRow | null }>> {
    const skus = rows.map((r) => r.sku);
    // Locked first, in id order as orders lock them, so that the upsert's own snapshot
    // (a statement of its own) reads each existing product as it is now.
    await db.rows(
      `SELECT id FROM products WHERE tenant_id = $1 AND sku = ANY($2::text[])
       ORDER BY id FOR NO KEY UPDATE`,
      [skus],
    );
    const written = await db.rows<{
      after: ProductRow;
      before: ProductRow | null;
      currency: string;
    }>(
      `WITH v AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::boolean[], $6::bigint[])
           AS v(sku, name, price, active, stock)),
       before AS (SELECT p.* FROM products p JOIN v ON p.tenant_id = $1 AND p.sku = v.sku),
       written AS (
         INSERT INTO products AS p (tenant_id, sku, name, price_minor, active, inventory_tracked, available)
         SELECT $1, v.sku, v.name, v.price, COALESCE(v.active, true), v.stock IS NOT NULL,
           COALESCE(v.stock, 0)
         FROM v
         ON CONFLICT (tenant_id, sku) DO UPDATE SET
           name = EXCLUDED.name,
           price_minor = EXCLUDED.price_minor,
           active = CASE WHEN $7 THEN EXCLUDED.active ELSE p.active END,
           inventory_tracked = p.inventory_tracked OR EXCLUDED.inventory_tracked,
           available = CASE WHEN EXCLUDED.inventory_tracked THEN EXCLUDED.available ELSE p.available END,
           version = p.version + 1,
           updated_at = clock_timestamp()
         WHERE (p.name, p.price_minor, p.active, p.inventory_tracked, p.available)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.price_minor,
             CASE WHEN $7 THEN EXCLUDED.active ELSE p.active END,
             p.inventory_tracked OR EXCLUDED.inventory_tracked,
             CASE WHEN EXCLUDED.inventory_tracked THEN EXCLUDED.available ELSE p.available END)
         RETURNING p.*)
       SELECT row_to_json(w) AS after, row_to_json(b) AS before, t.currency
       FROM written w JOIN tenants t ON t.id = $1 LEFT JOIN before b ON b.id = w.id
       ORDER BY w.id`,
      [
        skus,
        rows.map((r) => r.name),
        rows.map((r) => r.priceMinor),
        rows.map((r) => r.active ?? null),
        rows.map((r) => r.stock ?? null),
        hasActiveColumn,
      ],
    );
    return written.map((w) => ({
      after: productFromJson(w.after, w.currency),
      before: w.before && productFromJson(w.before, w.currency),
    }));
  }

  private async saved(db: TenantSql, update: string, values: unknown[]): Promise<ProductRow> {
    const [row] = await db.rows<ProductRow>(
      `WITH p AS (${update}) SELECT ${PRODUCT_COLUMNS} FROM p JOIN tenants t ON t.id = $1`,
      values,
    );
    return row;
  }
}

/** The list's conditions on products `p`; parameters from `$2` on. */
function conditions(spec: ProductListSpec, params: unknown[]): string[] {
  const where = ['p.tenant_id = $1'];
  const { sku, active, updated_after } = spec.filters;
  if (sku !== undefined) where.push(`p.sku = $${param(params, sku)}`);
  if (active !== undefined) where.push(`p.active = $${param(params, active)}`);
  if (updated_after !== undefined) {
    where.push(`p.updated_at >= $${param(params, updated_after)}::timestamptz`);
  }
  return where;
}

/** Adds a value; its placeholder number (`$1` is the tenant). */
function param(params: unknown[], value: unknown): number {
  params.push(value);
  return params.length + 1;
}

/** A product as row_to_json gives it (timestamps as text, no currency). */
export function productFromJson(row: ProductRow, currency: string): ProductRow {
  return {
    id: row.id,
    sku: row.sku,
    name: row.name,
    price_minor: row.price_minor,
    currency,
    active: row.active,
    inventory_tracked: row.inventory_tracked,
    available: row.available,
    version: row.version,
    created_at: new Date(row.created_at),
    updated_at: new Date(row.updated_at),
  };
}
