import { Injectable } from '@nestjs/common';
import type { SharedSql } from '../database/sql/shared-sql.js';

export interface TenantRow {
  id: number;
  name: string;
  /** ISO 4217; every order and price of the tenant is in it. */
  currency: string;
  createdAt: Date;
}

const COLUMNS = 'id, name, currency, created_at AS "createdAt"';

/** The tenants themselves: a table no tenant owns. */
@Injectable()
export class TenantsRepository {
  async insert(db: SharedSql, tenant: { name: string; currency: string }): Promise<TenantRow> {
    const [row] = await db.rows<TenantRow>(
      `INSERT INTO tenants (name, currency) VALUES ($1, $2) RETURNING ${COLUMNS}`,
      [tenant.name, tenant.currency],
    );
    return row;
  }

  list(db: SharedSql): Promise<TenantRow[]> {
    return db.rows<TenantRow>(`SELECT ${COLUMNS} FROM tenants ORDER BY id`);
  }

  find(db: SharedSql, id: number): Promise<TenantRow | undefined> {
    return db.first<TenantRow>(`SELECT ${COLUMNS} FROM tenants WHERE id = $1`, [id]);
  }
}
