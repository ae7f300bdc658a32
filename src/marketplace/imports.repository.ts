import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requireTenant } from '../common/tenant-scope.js';
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

/** marketplace_imports SQL, tenant first; every call runs in the caller's transaction. */
@Injectable()
export class ImportsRepository {
  /** Undefined when (tenant, marketplace, external_order_id) was accepted before. */
  async insert(
    m: EntityManager,
    tenantId: number,
    appId: number,
    payload: ImportOrderDto,
  ): Promise<ImportRow | undefined> {
    requireTenant(tenantId);
    const rows: ImportRow[] = await m.query(
      `INSERT INTO marketplace_imports (tenant_id, marketplace, external_order_id, payload, app_id)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, marketplace, external_order_id) DO NOTHING RETURNING ${COLUMNS}`,
      [tenantId, payload.marketplace, payload.external_order_id, JSON.stringify(payload), appId],
    );
    return rows[0];
  }

  async find(
    m: EntityManager,
    tenantId: number,
    marketplace: string,
    externalOrderId: string,
  ): Promise<ImportRow | undefined> {
    requireTenant(tenantId);
    const rows: ImportRow[] = await m.query(
      `SELECT ${COLUMNS} FROM marketplace_imports WHERE tenant_id = $1 AND marketplace = $2 AND external_order_id = $3`,
      [tenantId, marketplace, externalOrderId],
    );
    return rows[0];
  }

  /** Starts an attempt: visible as `processing` while the order is being written. */
  async startAttempt(
    m: EntityManager,
    tenantId: number,
    id: number,
  ): Promise<ImportRow | undefined> {
    requireTenant(tenantId);
    const rows: ImportRow[] = await m.query(
      `WITH started AS (
         UPDATE marketplace_imports SET status = 'processing', attempts = attempts + 1, updated_at = now()
         WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'processing')
         RETURNING ${COLUMNS})
       SELECT * FROM started`,
      [tenantId, id],
    );
    return rows[0];
  }

  async lock(m: EntityManager, tenantId: number, id: number): Promise<ImportRow | undefined> {
    requireTenant(tenantId);
    const rows: ImportRow[] = await m.query(
      `SELECT ${COLUMNS} FROM marketplace_imports WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
      [tenantId, id],
    );
    return rows[0];
  }

  async markImported(
    m: EntityManager,
    tenantId: number,
    id: number,
    orderId: number,
  ): Promise<void> {
    await m.query(
      `UPDATE marketplace_imports SET status = 'imported', order_id = $3, error = NULL, updated_at = now()
       WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, orderId],
    );
  }

  /**
   * After a failed attempt: back to `queued` for the retry, or `failed` for good. Undefined
   * when the import had ended already (imported, or failed by an earlier run of the job).
   */
  async markAttemptFailed(
    m: EntityManager,
    tenantId: number,
    id: number,
    error: string,
    final: boolean,
  ): Promise<ImportRow | undefined> {
    requireTenant(tenantId);
    const rows: ImportRow[] = await m.query(
      `WITH failed AS (
         UPDATE marketplace_imports SET status = $3, error = $4, updated_at = now()
         WHERE tenant_id = $1 AND id = $2 AND status IN ('queued', 'processing')
         RETURNING ${COLUMNS})
       SELECT * FROM failed`,
      [tenantId, id, final ? 'failed' : 'queued', error.slice(0, 1000)],
    );
    return rows[0];
  }
}
