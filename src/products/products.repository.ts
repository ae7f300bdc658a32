import { Injectable } from '@nestjs/common';
import { offsetOf, type PageQuery } from '../common/pagination.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { ProductInput } from './product-input.js';

export interface ProductRow {
  id: number;
  sku: string;
  name: string;
  /** Hundredths of the tenant currency. */
  price_minor: number;
  currency: string;
  active: boolean;
}

const COLUMNS = `p.id, p.sku, p.name, p.price_minor, t.currency, p.active`;

/** The tenant's catalog. */
@Injectable()
export class ProductsRepository {
  async page(db: TenantSql, query: PageQuery): Promise<{ rows: ProductRow[]; total: number }> {
    // One after the other: an expensive request holds one connection at a time (the caps
    // on expensive requests count a place as a connection).
    const rows = await db.rows<ProductRow>(
      `SELECT ${COLUMNS} FROM products p JOIN tenants t ON t.id = $1
       WHERE p.tenant_id = $1 ORDER BY p.id LIMIT $2 OFFSET $3`,
      [query.limit, offsetOf(query)],
    );
    const [{ total }] = await db.rows<{ total: number }>(
      'SELECT count(*)::int AS total FROM products WHERE tenant_id = $1',
    );
    return { rows, total };
  }

  find(db: TenantSql, id: number): Promise<ProductRow | undefined> {
    return db.first<ProductRow>(
      `SELECT ${COLUMNS} FROM products p JOIN tenants t ON t.id = $1
       WHERE p.tenant_id = $1 AND p.id = $2`,
      [id],
    );
  }

  /** The new product; undefined when the tenant already has one with this sku. */
  insert(db: TenantSql, input: ProductInput): Promise<ProductRow | undefined> {
    return db.first<ProductRow>(
      `WITH p AS (
         INSERT INTO products (tenant_id, sku, name, price_minor, active)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING
         RETURNING *)
       SELECT ${COLUMNS} FROM p JOIN tenants t ON t.id = $1`,
      [input.sku, input.name, input.priceMinor, input.active ?? true],
    );
  }

  /**
   * Inserts or updates by sku, in one statement. `hasActiveColumn` false: existing products
   * keep their state (new ones are active). Tells, per row, whether it was inserted.
   */
  upsert(
    db: TenantSql,
    rows: readonly ProductInput[],
    hasActiveColumn: boolean,
  ): Promise<Array<{ inserted: boolean }>> {
    return db.rows<{ inserted: boolean }>(
      `INSERT INTO products (tenant_id, sku, name, price_minor, active)
       SELECT $1, v.sku, v.name, v.price, COALESCE(v.active, true)
       FROM unnest($2::text[], $3::text[], $4::bigint[], $5::boolean[]) AS v(sku, name, price, active)
       ON CONFLICT (tenant_id, sku) DO UPDATE SET
         name = EXCLUDED.name,
         price_minor = EXCLUDED.price_minor,
         active = CASE WHEN $6 THEN EXCLUDED.active ELSE products.active END,
         updated_at = now()
       RETURNING (xmax = 0) AS inserted`,
      [
        rows.map((r) => r.sku),
        rows.map((r) => r.name),
        rows.map((r) => r.priceMinor),
        rows.map((r) => r.active ?? null),
        hasActiveColumn,
      ],
    );
  }
}
