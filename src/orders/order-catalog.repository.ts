import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';

export interface CatalogProduct {
  sku: string;
  name: string;
  price_minor: number;
  /** Whether orders take its stock (read without a lock: StockRepository decides under one). */
  inventory_tracked: boolean;
}

/** The tenant's catalog as orders read it: what a line may name, and at what price. */
@Injectable()
export class OrderCatalogRepository {
  /** The active products among `ids`, by id. */
  async activeProducts(db: TenantSql, ids: number[]): Promise<Map<number, CatalogProduct>> {
    const rows = await db.rows<CatalogProduct & { id: number }>(
      `SELECT id, sku, name, price_minor, inventory_tracked FROM products
       WHERE tenant_id = $1 AND id = ANY($2::bigint[]) AND active`,
      [ids],
      true,
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  /**
   * The tenant's products, active or not, among these ids and skus: which of `ids` exist, and
   * the product of each sku (a marketplace line names its product by id, else by sku).
   */
  async productsByIdOrSku(
    db: TenantSql,
    ids: number[],
    skus: string[],
  ): Promise<{ ids: Set<number>; bySku: Map<string, number> }> {
    const rows = await db.rows<{ id: number; sku: string }>(
      `SELECT id, sku FROM products
       WHERE tenant_id = $1 AND (id = ANY($2::bigint[]) OR sku = ANY($3::text[]))`,
      [ids, skus],
    );
    return {
      ids: new Set(rows.map((r) => r.id)),
      bySku: new Map(rows.map((r) => [r.sku, r.id])),
    };
  }
}
