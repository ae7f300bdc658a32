import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import { productFromJson, type ProductRow } from './products.repository.js';

/** One product's stock moved by a statement: the product after, and `available` before. */
export interface StockMove {
  product: ProductRow;
  previousAvailable: number;
}

/** A tracked product an order asks more of than is available. */
export interface StockShortage {
  productId: number;
  requested: number;
  available: number;
}

/** Per product id, the units to take (positive) or give back (negative). */
export type StockDelta = ReadonlyMap<number, number>;

/**
 * The stock of the tenant's tracked products, moved in the caller's unit of work by one
 * statement per call, whatever the number of products: their rows are locked in id order (so
 * two orders of the same products in opposite line order cannot deadlock), then, unless a
 * product is short, each `available` moves. The conditions are PostgreSQL's, under the row
 * locks: nothing is read into the application and written back.
 */
@Injectable()
export class StockRepository {
  /**
   * An API order: every tracked product among `delta` gives its units, or none does and the
   * shortages are returned. Untracked products (and ids not in the catalog) are left alone.
   */
  async take(
    db: TenantSql,
    delta: StockDelta,
  ): Promise<{ moves: StockMove[] } | { shortages: StockShortage[] }> {
    const rows = await this.move(db, delta, false);
    // Decided by the statement, under the locks; only reported here.
    const shortages = rows
      .filter((r) => r.before < r.quantity)
      .map((r) => ({ productId: r.id, requested: r.quantity, available: r.before }));
    if (shortages.length > 0) return { shortages };
    return { moves: movesOf(rows) };
  }

  /**
   * Moves the stock of every tracked product among `delta` as it says, below zero included: a
   * marketplace import (sold elsewhere already) takes, a cancel or a refund gives back.
   */
  async force(db: TenantSql, delta: StockDelta): Promise<StockMove[]> {
    return movesOf(await this.move(db, delta, true));
  }

  private async move(db: TenantSql, delta: StockDelta, force: boolean): Promise<MovedRow[]> {
    if (delta.size === 0) return [];
    const ids = [...delta.keys()].sort((a, b) => a - b);
    return db.rows<MovedRow>(
      `WITH w AS (SELECT * FROM unnest($2::bigint[], $3::bigint[]) AS w(id, quantity)),
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
       ORDER BY l.id`,
      [ids, ids.map((id) => delta.get(id)!), force],
      true,
    );
  }
}

interface MovedRow {
  id: number;
  before: number;
  quantity: number;
  /** The product after (row_to_json); null when nothing moved. */
  after: ProductRow | null;
  currency: string;
}

function movesOf(rows: readonly MovedRow[]): StockMove[] {
  return rows
    .filter((r) => r.after !== null)
    .map((r) => ({ previousAvailable: r.before, product: productFromJson(r.after!, r.currency) }));
}
