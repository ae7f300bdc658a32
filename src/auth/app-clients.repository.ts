import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/**
 * The directory of client ids: which tenant a client_id belongs to. The token endpoint and the
 * CLI know a client by its id alone; its primary key keeps a client_id unique across tenants,
 * which `apps` (keyed within its tenant) cannot once it is distributed by tenant. A reference
 * table then (docs/SCALING.md).
 */
@Injectable()
export class AppClientsRepository {
  async register(db: TenantSql, clientId: string): Promise<void> {
    await db.rows('INSERT INTO app_clients (tenant_id, client_id) VALUES ($1, $2)', [clientId]);
  }

  /**
   * Enters every app missing from the directory (one made by a process of the release before
   * it, during a rolling deploy); returns how many. A scan of `apps`, which is small.
   */
  backfill(db: CrossTenantSql): Promise<number> {
    return db.count(
      `INSERT INTO app_clients (client_id, tenant_id)
       SELECT a.client_id, a.tenant_id FROM apps a
       WHERE NOT EXISTS (SELECT 1 FROM app_clients d WHERE d.client_id = a.client_id)
       ON CONFLICT (client_id) DO NOTHING`,
    );
  }

  async tenantOf(db: CrossTenantSql, clientId: string): Promise<number | undefined> {
    const row = await db.first<{ tenant_id: number }>(
      'SELECT tenant_id FROM app_clients WHERE client_id = $1',
      [clientId],
    );
    return row?.tenant_id;
  }
}
