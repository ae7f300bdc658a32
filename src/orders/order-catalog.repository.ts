import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';

export interface CatalogProduct {
  sku: string;
  name: string;
  price_minor: number;
}

/** The tenant's catalog as orders read it: what a line may name, and at what price. */
@Injectable()
export class OrderCatalogRepository {
  /** The active products among `ids`, by id. */
  async activeProducts(db: TenantSql, ids: number[]): Promise<Map<number, CatalogProduct>> {
    const rows = await db.rows<CatalogProduct & { id: number }>(
      `SELECT id, sku, name, price_minor FROM products WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active`,
      [ids],
      true,
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** The ids of the products with these skus, active or not, by sku. */
  async productIdsBySku(db: TenantSql, skus: string[]): Promise<Map<string, number>> {
    const rows = await db.rows<{ id: number; sku: string }>(
      'SELECT id, sku FROM products WHERE tenant_id = $1 AND sku = ANY($2::text[])',
      [skus],
    );
    return new Map(rows.map((r) => [r.sku, r.id]));
  }
}
