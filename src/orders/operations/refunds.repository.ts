import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../../database/sql/tenant-sql.js';
import type { LineQuantity } from '../order-operations.js';

export interface RefundRow {
  id: number;
  order_id: number;
  amount_minor: number;
  currency: string;
  items: LineQuantity[];
  reason: string | null;
  restocked: boolean;
  created_at: Date;
}

const COLUMNS = 'id, order_id, amount_minor, currency, items, reason, restocked, created_at';

export interface NewRefund {
  orderId: number;
  amountMinor: number;
  currency: string;
  items: readonly LineQuantity[];
  reason: string | null;
  restocked: boolean;
  at: Date;
}

/** Refunds of the path's tenant's orders; every statement in the caller's unit of work. */
@Injectable()
export class RefundsRepository {
  async insert(db: TenantSql, refund: NewRefund): Promise<RefundRow> {
    const rows = await db.rows<RefundRow>(
      `INSERT INTO refunds (tenant_id, order_id, amount_minor, currency, items, reason, restocked, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [
        refund.orderId,
        refund.amountMinor,
        refund.currency,
        JSON.stringify(refund.items),
        refund.reason,
        refund.restocked,
        refund.at,
      ],
    );
    return rows[0];
  }

  find(db: TenantSql, orderId: number, id: number): Promise<RefundRow | undefined> {
    return db.first<RefundRow>(
      `SELECT ${COLUMNS} FROM refunds WHERE tenant_id = $1 AND order_id = $2 AND id = $3`,
      [orderId, id],
    );
  }

  /** The order's refunds, oldest first. */
  ofOrder(db: TenantSql, orderId: number): Promise<RefundRow[]> {
    return db.rows<RefundRow>(
      `SELECT ${COLUMNS} FROM refunds WHERE tenant_id = $1 AND order_id = $2 ORDER BY id`,
      [orderId],
    );
  }
}
