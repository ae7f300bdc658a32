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
   * The tenant's products with these skus, locked until the unit of work ends, in id order (as
   * orders lock them), as they are now: by sku.
   */
  async lockBySku(db: TenantSql, skus: readonly string[]): Promise<Map<string, ProductRow>> {
    const rows = await db.rows<ProductRow>(
      `SELECT ${PRODUCT_COLUMNS} FROM products p JOIN tenants t ON t.id = $1
       WHERE p.tenant_id = $1 AND p.sku = ANY($2::text[])
       ORDER BY p.id FOR NO KEY UPDATE OF p`,
      [skus],
    );
    return new Map(rows.map((r) => [r.sku, r]));
  }

  /**
   * Inserts or updates by sku, in one statement. Only products the caller locked
   * (lockBySku, `lockedIds`) are updated, and only when the row changes something; a sku
   * another writer created since is neither inserted nor updated (the caller sees it missing).
   * `hasActiveColumn` false: existing products keep their state (new ones are active). A row
   * with `stock` turns tracking on with that many available. Per product written: the product
   * after, and whether it was inserted.
   */
  async upsert(
    db: TenantSql,
    rows: readonly ProductInput[],
    hasActiveColumn: boolean,
    lockedIds: readonly number[],
  ): Promise<Array<{ product: ProductRow; inserted: boolean }>> {
    const written = await db.rows<{ product: ProductRow; inserted: boolean; currency: string }>(
      `WITH written AS (
         INSERT INTO products AS p (tenant_id, sku, name, price_minor, active, inventory_tracked, available)
         SELECT $1, v.sku, v.name, v.price, COALESCE(v.active, true), v.stock IS NOT NULL,
           COALESCE(v.stock, 0)
         FROM unnest($2::text[], $3::text[], $4::bigint[], $5::boolean[], $6::bigint[])
           AS v(sku, name, price, active, stock)
         ON CONFLICT (tenant_id, sku) DO UPDATE SET
           name = EXCLUDED.name,
           price_minor = EXCLUDED.price_minor,
           active = CASE WHEN $7 THEN EXCLUDED.active ELSE p.active END,
           inventory_tracked = p.inventory_tracked OR EXCLUDED.inventory_tracked,
           available = CASE WHEN EXCLUDED.inventory_tracked THEN EXCLUDED.available ELSE p.available END,
           version = p.version + 1,
           updated_at = clock_timestamp()
         WHERE p.id = ANY($8::bigint[])
           AND (p.name, p.price_minor, p.active, p.inventory_tracked, p.available)
           IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.price_minor,
             CASE WHEN $7 THEN EXCLUDED.active ELSE p.active END,
             p.inventory_tracked OR EXCLUDED.inventory_tracked,
             CASE WHEN EXCLUDED.inventory_tracked THEN EXCLUDED.available ELSE p.available END)
         RETURNING p.*, (p.xmax = 0) AS inserted)
       SELECT row_to_json(w) AS product, w.inserted, t.currency
       FROM written w JOIN tenants t ON t.id = $1
       ORDER BY w.id`,
      [
        rows.map((r) => r.sku),
        rows.map((r) => r.name),
        rows.map((r) => r.priceMinor),
        rows.map((r) => r.active ?? null),
        rows.map((r) => r.stock ?? null),
        hasActiveColumn,
        lockedIds,
      ],
    );
    return written.map((w) => ({
      product: productFromJson(w.product, w.currency),
      inserted: w.inserted,
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
