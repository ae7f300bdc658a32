import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';
import type { SharedSql } from '../database/sql/shared-sql.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/** What token checks need to know of an app. */
export interface AppCredentials {
  id: number;
  tenantId: number;
  clientId: string;
  active: boolean;
  credentialsVersion: number;
  approvedScopes: string[];
  secretHash: Buffer;
}

/** A revoked, unexpired token or session id and its expiry. */
export interface Revocation {
  id: string;
  expires_at: Date;
}

const APP_COLUMNS = `a.id, a.tenant_id AS "tenantId", a.client_id AS "clientId", a.active,
  a.credentials_version AS "credentialsVersion", a.approved_scopes AS "approvedScopes",
  a.secret_hash AS "secretHash"`;

/**
 * The credentials state (credentials-state.service.ts) as the database holds it: apps by id
 * (the token names its tenant) or by client_id (its tenant found in the directory first), and
 * revocations of every tenant, which each instance keeps in memory.
 */
@Injectable()
export class CredentialsRepository {
  appById(db: TenantSql, appId: number): Promise<AppCredentials | undefined> {
    return db.first<AppCredentials>(
      `SELECT ${APP_COLUMNS} FROM apps a WHERE a.tenant_id = $1 AND a.id = $2`,
      [appId],
    );
  }

  appByClientId(db: TenantSql, clientId: string): Promise<AppCredentials | undefined> {
    return db.first<AppCredentials>(
      `SELECT ${APP_COLUMNS} FROM apps a WHERE a.tenant_id = $1 AND a.client_id = $2`,
      [clientId],
    );
  }

  async isTokenRevoked(db: TenantSql, jti: string): Promise<boolean> {
    const rows = await db.rows(
      'SELECT 1 FROM app_tokens WHERE tenant_id = $1 AND jti = $2 AND revoked_at IS NOT NULL',
      [jti],
    );
    return rows.length > 0;
  }

  async isSessionRevoked(db: TenantSql, sessionId: string): Promise<boolean> {
    const rows = await db.rows(
      `SELECT 1 FROM customer_sessions
       WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NOT NULL`,
      [sessionId],
    );
    return rows.length > 0;
  }

  /** Unexpired tokens revoked since `since` (null: all of them). */
  revokedTokens(db: CrossTenantSql, since: Date | null): Promise<Revocation[]> {
    return db.rows<Revocation>(
      `SELECT jti AS id, expires_at FROM app_tokens
       WHERE revoked_at IS NOT NULL AND expires_at > now()
         AND ($1::timestamptz IS NULL OR revoked_at >= $1)`,
      [since],
    );
  }

  /** Unexpired customer sessions revoked since `since` (null: all of them). */
  revokedSessions(db: CrossTenantSql, since: Date | null): Promise<Revocation[]> {
    return db.rows<Revocation>(
      `SELECT id, expires_at FROM customer_sessions
       WHERE revoked_at IS NOT NULL AND expires_at > now()
         AND ($1::timestamptz IS NULL OR revoked_at >= $1)`,
      [since],
    );
  }

  /** The database's clock: loads are dated by it, never by this process's. */
  async now(db: SharedSql): Promise<Date> {
    const [{ now }] = await db.rows<{ now: Date }>('SELECT now() AS now');
    return now;
  }
}
