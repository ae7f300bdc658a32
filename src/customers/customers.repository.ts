import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';

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

/** Customer SQL, on the tenant path ($1 is the tenant). */
@Injectable()
export class CustomersRepository {
  /** Undefined when the email is taken in this tenant (any case): the unique index decides. */
  insert(
    db: TenantSql,
    c: { name: string; email: string; phone?: string; passwordHash: string },
  ): Promise<CustomerRow | undefined> {
    return db.first<CustomerRow>(
      `INSERT INTO customers (tenant_id, name, email, phone, password_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, lower(email)) DO NOTHING RETURNING ${COLUMNS}`,
      [c.name, c.email, c.phone ?? null, c.passwordHash],
    );
  }

  /**
   * For login: the customer with this email (if any) and the email's key as PostgreSQL
   * lowers it, in one round trip. The limit must count under the database's idea of the
   * email, or a differently-cased variant (`İ`, `ẞ`) that finds the same customer would
   * get attempts of its own.
   */
  async lookupForLogin(
    db: TenantSql,
    email: string,
  ): Promise<{ emailKey: string; customer?: CustomerRow }> {
    const row = (await db.first<{ key: string; customer: CustomerRow | null }>(
      `SELECT lower($2::text) AS key,
         (SELECT row_to_json(c) FROM (SELECT ${COLUMNS} FROM customers
            WHERE tenant_id = $1 AND lower(email) = lower($2)) c) AS customer`,
      [email],
    ))!;
    return { emailKey: row.key, customer: row.customer ?? undefined };
  }

  byEmail(db: TenantSql, email: string): Promise<CustomerRow | undefined> {
    return db.first<CustomerRow>(
      `SELECT ${COLUMNS} FROM customers WHERE tenant_id = $1 AND lower(email) = lower($2)`,
      [email],
    );
  }

  byId(db: TenantSql, id: number): Promise<CustomerRow | undefined> {
    return db.first<CustomerRow>(
      `SELECT ${COLUMNS} FROM customers WHERE tenant_id = $1 AND id = $2 AND erased_at IS NULL`,
      [id],
    );
  }

  async setPasswordHash(db: TenantSql, id: number, hash: string): Promise<void> {
    await db.count(
      `UPDATE customers SET password_hash = $3, updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND erased_at IS NULL`,
      [id, hash],
    );
  }

  /**
   * Opens a session only while the password is still the one just verified: a reset or
   * change that commits during the login's argon2 makes this insert nothing (false), so no
   * session opened with an old password outlives the change. FOR SHARE waits for a change
   * in flight to commit and then re-reads the row (a plain read would still see the old
   * hash, and the change's session purge would not see this session).
   */
  /**
   * A session of the customer; with `passwordHash`, only while that is still the customer's
   * password (a login: the password may change while it is checked).
   */
  async insertSession(
    db: TenantSql,
    s: {
      id: string;
      customerId: number;
      appId: number;
      scopes: string[];
      ttlSeconds: number;
      passwordHash: string | null;
      chainId: string | null;
    },
  ): Promise<boolean> {
    const inserted = await db.count(
      `INSERT INTO customer_sessions (id, tenant_id, customer_id, app_id, scopes, expires_at, chain_id)
       SELECT $2, c.tenant_id, c.id, $4, $5, now() + make_interval(secs => $6), $8
       FROM customers c
       WHERE c.tenant_id = $1 AND c.id = $3 AND c.erased_at IS NULL
         AND ($7::text IS NULL OR c.password_hash = $7)
       FOR SHARE OF c`,
      [s.id, s.customerId, s.appId, s.scopes, s.ttlSeconds, s.passwordHash, s.chainId],
    );
    return inserted > 0;
  }

  /**
   * Holds the customer's row against a change of credentials until the unit of work ends (a
   * refresh: a reset or password change waits for it, or it for them).
   */
  async holdAgainstChange(db: TenantSql, id: number): Promise<boolean> {
    const rows = await db.rows(
      'SELECT 1 FROM customers WHERE tenant_id = $1 AND id = $2 FOR SHARE',
      [id],
    );
    return rows.length > 0;
  }

  /**
   * Locks the customer's row for a change of credentials (reset, change, new ticket); false
   * when there is no such customer, or it was erased.
   */
  async lockForUpdate(db: TenantSql, id: number): Promise<boolean> {
    const rows = await db.rows(
      // An erasure that held the row is seen once it commits: the customer is gone.
      'SELECT 1 FROM customers WHERE tenant_id = $1 AND id = $2 AND erased_at IS NULL FOR UPDATE',
      [id],
    );
    return rows.length > 0;
  }

  /** Whether the session is live, held so a concurrent logout-all cannot end it meanwhile. */
  async sessionIsLive(db: TenantSql, sessionId: string): Promise<boolean> {
    const rows = await db.rows(
      `SELECT 1 FROM customer_sessions
       WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL AND expires_at > now() FOR SHARE`,
      [sessionId],
    );
    return rows.length > 0;
  }

  /** Replaces the hash only if it is still `from` (a rehash or change must not undo a reset). */
  async replacePasswordHash(db: TenantSql, id: number, from: string, to: string): Promise<boolean> {
    const changed = await db.count(
      `UPDATE customers SET password_hash = $4, updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND password_hash = $3`,
      [id, from, to],
    );
    return changed > 0;
  }

  /** Marks the email verified; the row as it is now (undefined when there is no such customer). */
  markVerified(db: TenantSql, id: number): Promise<CustomerRow | undefined> {
    return db.first<CustomerRow>(
      `UPDATE customers SET email_verified = true, updated_at = now()
       WHERE tenant_id = $1 AND id = $2 AND erased_at IS NULL RETURNING ${COLUMNS}`,
      [id],
    );
  }
}
