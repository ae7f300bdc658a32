import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../../database/sql/tenant-sql.js';
import type { LineQuantity } from '../order-operations.js';

export interface Tracking {
  company: string;
  number: string;
  url: string | null;
}

export interface FulfillmentRow {
  id: number;
  order_id: number;
  items: LineQuantity[];
  tracking: Tracking | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, order_id, items, tracking, created_at, updated_at';

/** Fulfillments of the path's tenant's orders; every statement in the caller's unit of work. */
@Injectable()
export class FulfillmentsRepository {
  async insert(
    db: TenantSql,
    orderId: number,
    items: readonly LineQuantity[],
    tracking: Tracking | null,
    at: Date,
  ): Promise<FulfillmentRow> {
    const rows = await db.rows<FulfillmentRow>(
      `INSERT INTO fulfillments (tenant_id, order_id, items, tracking, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${COLUMNS}`,
      [orderId, JSON.stringify(items), tracking === null ? null : JSON.stringify(tracking), at],
    );
    return rows[0];
  }

  /** Replaces the tracking of the order's fulfillment; undefined when there is no such one. */
  async setTracking(
    db: TenantSql,
    orderId: number,
    id: number,
    tracking: Tracking | null,
  ): Promise<FulfillmentRow | undefined> {
    return db.first<FulfillmentRow>(
      `UPDATE fulfillments SET tracking = $4, updated_at = clock_timestamp()
       WHERE tenant_id = $1 AND order_id = $2 AND id = $3 RETURNING ${COLUMNS}`,
      [orderId, id, tracking === null ? null : JSON.stringify(tracking)],
    );
  }

  find(db: TenantSql, orderId: number, id: number): Promise<FulfillmentRow | undefined> {
    return db.first<FulfillmentRow>(
      `SELECT ${COLUMNS} FROM fulfillments WHERE tenant_id = $1 AND order_id = $2 AND id = $3`,
      [orderId, id],
    );
  }

  /** The order's fulfillments, oldest first. */
  ofOrder(db: TenantSql, orderId: number): Promise<FulfillmentRow[]> {
    return db.rows<FulfillmentRow>(
      `SELECT ${COLUMNS} FROM fulfillments WHERE tenant_id = $1 AND order_id = $2 ORDER BY id`,
      [orderId],
    );
  }
}
