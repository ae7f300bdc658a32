import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requireTenant } from '../common/tenant-scope.js';

export interface CustomerRow {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  password_hash: string;
}

const COLUMNS = 'id, name, email, phone, password_hash';

/** Customer and session SQL; every statement is bound to a tenant. */
@Injectable()
export class CustomersRepository {
  /** Undefined when the email is taken in this tenant (any case): the unique index decides. */
  async insert(
    m: EntityManager,
    tenantId: number,
    c: { name: string; email: string; phone?: string; passwordHash: string },
  ): Promise<CustomerRow | undefined> {
    requireTenant(tenantId);
    const rows: CustomerRow[] = await m.query(
      `INSERT INTO customers (tenant_id, name, email, phone, password_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, lower(email)) DO NOTHING RETURNING ${COLUMNS}`,
      [tenantId, c.name, c.email, c.phone ?? null, c.passwordHash],
    );
    return rows[0];
  }

  async byEmail(
    m: EntityManager,
    tenantId: number,
    email: string,
  ): Promise<CustomerRow | undefined> {
    requireTenant(tenantId);
    const rows: CustomerRow[] = await m.query(
      `SELECT ${COLUMNS} FROM customers WHERE tenant_id = $1 AND lower(email) = lower($2)`,
      [tenantId, email],
    );
    return rows[0];
  }

  async byId(m: EntityManager, tenantId: number, id: number): Promise<CustomerRow | undefined> {
    requireTenant(tenantId);
    const rows: CustomerRow[] = await m.query(
      `SELECT ${COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id],
    );
    return rows[0];
  }

  async setPasswordHash(
    m: EntityManager,
    tenantId: number,
    id: number,
    hash: string,
  ): Promise<void> {
    requireTenant(tenantId);
    await m.query(
      'UPDATE customers SET password_hash = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2',
      [tenantId, id, hash],
    );
  }

  async insertSession(
    m: EntityManager,
    tenantId: number,
    s: { id: string; customerId: number; appId: number; scopes: string[]; ttlSeconds: number },
  ): Promise<void> {
    requireTenant(tenantId);
    await m.query(
      `INSERT INTO customer_sessions (id, tenant_id, customer_id, app_id, scopes, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
      [s.id, tenantId, s.customerId, s.appId, s.scopes, s.ttlSeconds],
    );
  }

  /** Marks the session revoked; returns its expiry, or undefined when there is no such session. */
  async revokeSession(
    m: EntityManager,
    tenantId: number,
    sessionId: string,
  ): Promise<Date | undefined> {
    requireTenant(tenantId);
    const rows: Array<{ expires_at: Date }> = await m.query(
      `WITH revoked AS (
         UPDATE customer_sessions SET revoked_at = COALESCE(revoked_at, now())
         WHERE tenant_id = $1 AND id = $2 RETURNING expires_at)
       SELECT expires_at FROM revoked`,
      [tenantId, sessionId],
    );
    return rows[0]?.expires_at;
  }
}
