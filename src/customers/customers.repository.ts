import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { requireTenant } from '../common/tenant-scope.js';

export interface CustomerRow {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  email_verified: boolean;
  password_hash: string;
  /** lower(email) as PostgreSQL computes it: the key the unique index and limits use. */
  email_key: string;
}

const COLUMNS = 'id, name, email, phone, email_verified, password_hash, lower(email) AS email_key';

/** A revoked session, with what every instance needs to forget it in time. */
export interface RevokedSession {
  id: string;
  expires_at: Date;
}

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

  /**
   * For login: the customer with this email (if any) and the email's key as PostgreSQL
   * lowers it, in one round trip. The limit must count under the database's idea of the
   * email, or a differently-cased variant (`İ`, `ẞ`) that finds the same customer would
   * get attempts of its own.
   */
  async lookupForLogin(
    m: EntityManager,
    tenantId: number,
    email: string,
  ): Promise<{ emailKey: string; customer?: CustomerRow }> {
    requireTenant(tenantId);
    const rows: Array<{ key: string; customer: CustomerRow | null }> = await m.query(
      `SELECT lower($2::text) AS key,
         (SELECT row_to_json(c) FROM (SELECT ${COLUMNS} FROM customers
            WHERE tenant_id = $1 AND lower(email) = lower($2)) c) AS customer`,
      [tenantId, email],
    );
    return { emailKey: rows[0].key, customer: rows[0].customer ?? undefined };
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

  /**
   * Opens a session only while the password is still the one just verified: a reset or
   * change that commits during the login's argon2 makes this insert nothing (false), so no
   * session opened with an old password outlives the change. FOR SHARE waits for a change
   * in flight to commit and then re-reads the row (a plain read would still see the old
   * hash, and the change's session purge would not see this session).
   */
  async insertSession(
    m: EntityManager,
    tenantId: number,
    s: {
      id: string;
      customerId: number;
      appId: number;
      scopes: string[];
      ttlSeconds: number;
      passwordHash: string;
    },
  ): Promise<boolean> {
    requireTenant(tenantId);
    const rows: unknown[] = await m.query(
      `INSERT INTO customer_sessions (id, tenant_id, customer_id, app_id, scopes, expires_at)
       SELECT $1, c.tenant_id, c.id, $4, $5, now() + make_interval(secs => $6)
       FROM customers c WHERE c.tenant_id = $2 AND c.id = $3 AND c.password_hash = $7
       FOR SHARE OF c
       RETURNING id`,
      [s.id, tenantId, s.customerId, s.appId, s.scopes, s.ttlSeconds, s.passwordHash],
    );
    return rows.length > 0;
  }

  /** Locks the customer's row for a change of credentials (reset, change, new ticket). */
  async lockForUpdate(m: EntityManager, tenantId: number, id: number): Promise<boolean> {
    requireTenant(tenantId);
    const rows: unknown[] = await m.query(
      'SELECT 1 FROM customers WHERE tenant_id = $1 AND id = $2 FOR UPDATE',
      [tenantId, id],
    );
    return rows.length > 0;
  }

  /** Whether the session is live, held so a concurrent logout-all cannot end it meanwhile. */
  async sessionIsLive(m: EntityManager, tenantId: number, sessionId: string): Promise<boolean> {
    requireTenant(tenantId);
    const rows: unknown[] = await m.query(
      `SELECT 1 FROM customer_sessions
       WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL AND expires_at > now() FOR SHARE`,
      [tenantId, sessionId],
    );
    return rows.length > 0;
  }

  /** Replaces the hash only if it is still `from` (a rehash or change must not undo a reset). */
  async replacePasswordHash(
    m: EntityManager,
    tenantId: number,
    id: number,
    from: string,
    to: string,
  ): Promise<boolean> {
    requireTenant(tenantId);
    const rows: unknown[] = await m.query(
      `WITH changed AS (
         UPDATE customers SET password_hash = $4, updated_at = now()
         WHERE tenant_id = $1 AND id = $2 AND password_hash = $3 RETURNING 1)
       SELECT 1 FROM changed`,
      [tenantId, id, from, to],
    );
    return rows.length > 0;
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

  /** Marks the email verified; the row as it is now (undefined when there is no such customer). */
  async markVerified(
    m: EntityManager,
    tenantId: number,
    id: number,
  ): Promise<CustomerRow | undefined> {
    requireTenant(tenantId);
    const rows: CustomerRow[] = await m.query(
      `WITH verified AS (
         UPDATE customers SET email_verified = true, updated_at = now()
         WHERE tenant_id = $1 AND id = $2 RETURNING ${COLUMNS})
       SELECT * FROM verified`,
      [tenantId, id],
    );
    return rows[0];
  }

  /** Revokes every live session of the customer except `keep`; returns the revoked ones. */
  async revokeSessionsOf(
    m: EntityManager,
    tenantId: number,
    customerId: number,
    keep?: string,
  ): Promise<RevokedSession[]> {
    requireTenant(tenantId);
    return m.query(
      `WITH revoked AS (
         UPDATE customer_sessions SET revoked_at = now()
         WHERE tenant_id = $1 AND customer_id = $2 AND revoked_at IS NULL AND expires_at > now()
           AND ($3::uuid IS NULL OR id <> $3::uuid)
         RETURNING id, expires_at)
       SELECT * FROM revoked`,
      [tenantId, customerId, keep ?? null],
    );
  }
}
