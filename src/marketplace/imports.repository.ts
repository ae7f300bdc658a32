import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';
import type { ImportOrderDto, ImportStatus } from './dto/import-order.dto.js';

export interface ImportRow {
  id: number;
  tenant_id: number;
  marketplace: string;
  external_order_id: string;
  status: ImportStatus;
  payload: ImportOrderDto;
  order_id: number | null;
  error: string | null;
  attempts: number;
  app_id: number | null;
}

const COLUMNS =
  'id, tenant_id, marketplace, external_order_id, status, payload, order_id, error, attempts, app_id';

/** The path's tenant's marketplace imports; every statement runs in the caller's unit of work. */
@Injectable()
export class ImportsRepository {
  /** Undefined when (tenant, marketplace, external_order_id) was accepted before. */
  insert(db: TenantSql, appId: number, payload: ImportOrderDto): Promise<ImportRow | undefined> {
    return db.first<ImportRow>(
      `INSERT INTO marketplace_imports (tenant_id, marketplace, external_order_id, payload, app_id)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, marketplace, external_order_id) DO NOTHING RETURNING ${COLUMNS}`,
      [payload.marketplace, payload.external_order_id, JSON.stringify(payload), appId],
    );
  }

  find(
    db: TenantSql,
    marketplace: string,
    externalOrderId: string,
  ): Promise<ImportRow | undefined> {
    return db.first<ImportRow>(
      `SELECT ${COLUMNS} FROM marketplace_imports WHERE tenant_id = $1 AND marketplace = $2 AND external_order_id = $3`,
      [marketplace, externalOrderId],
    );
  }

  /** Starts an attempt: visible as `processing` while the order is being written. */
  startAttempt(db: TenantSql, id: number): Promise<ImportRow | undefined> {
    return db.first<ImportRow>(
      `WITH started AS (
         UPDATE marketplace_imports SET status = 'processing', attempts = attempts + 1, updated_at = now()
         WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'processing')
         RETURNING ${COLUMNS})
       SELECT * FROM started`,
      [id],
    );
  }

  lock(db: TenantSql, id: number): Promise<ImportRow | undefined> {
    return db.first<ImportRow>(
      `SELECT ${COLUMNS} FROM marketplace_imports WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
      [id],
    );
  }

  async markImported(db: TenantSql, id: number, orderId: number): Promise<void> {
    await db.count(
      `UPDATE marketplace_imports SET status = 'imported', order_id = $3, error = NULL, updated_at = now()
       WHERE tenant_id = $1 AND id = $2`,
      [id, orderId],
    );
  }

  /**
   * After a failed attempt: back to `queued` for the retry, or `failed` for good. Undefined
   * when the import had ended already (imported, or failed by an earlier run of the job).
   */
  markAttemptFailed(
    db: TenantSql,
    id: number,
    error: string,
    final: boolean,
  ): Promise<ImportRow | undefined> {
    return db.first<ImportRow>(
      `WITH failed AS (
         UPDATE marketplace_imports SET status = $3, error = $4, updated_at = now()
         WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'processing')
         RETURNING ${COLUMNS})
       SELECT * FROM failed`,
      [id, final ? 'failed' : 'queued', error.slice(0, 1000)],
    );
  }
}
