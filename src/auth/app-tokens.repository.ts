import { Injectable } from '@nestjs/common';
import type { CrossTenantSql } from '../database/sql/cross-tenant-sql.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';

export interface NewAppToken {
  jti: string;
  appId: number;
  scopes: string[];
  credentialsVersion: number;
  /** Epoch seconds, as in the token's claims. */
  issuedAt: number;
  expiresAt: number;
}

export interface RevokedAppToken {
  appId: number;
  clientId: string;
  revokedAt: Date;
  expiresAt: Date;
  /** Revoked by this statement (false: it was revoked already). */
  newly: boolean;
}

/** App tokens are recorded when issued so that they can be revoked one by one. */
@Injectable()
export class AppTokensRepository {
  async insert(db: TenantSql, token: NewAppToken): Promise<void> {
    await db.rows(
      `INSERT INTO app_tokens (tenant_id, jti, app_id, scopes, credentials_version, issued_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, to_timestamp($6), to_timestamp($7))`,
      [
        token.jti,
        token.appId,
        token.scopes,
        token.credentialsVersion,
        token.issuedAt,
        token.expiresAt,
      ],
      true,
    );
  }

  /** Revokes the token (once: a second revocation finds it revoked); undefined if unknown. */
  revoke(db: TenantSql, jti: string): Promise<RevokedAppToken | undefined> {
    return db.first<RevokedAppToken>(
      // Only the statement that sets revoked_at reports `newly` (a concurrent second
      // revocation re-checks the row after the first commits and finds it revoked).
      `WITH revoked AS (
         UPDATE app_tokens t SET revoked_at = now()
         FROM apps a
         WHERE t.tenant_id = $1 AND t.jti = $2 AND t.revoked_at IS NULL
           AND a.tenant_id = $1 AND a.id = t.app_id
         RETURNING t.app_id, a.client_id, t.revoked_at, t.expires_at, true AS newly)
       SELECT app_id AS "appId", client_id AS "clientId", revoked_at AS "revokedAt",
              expires_at AS "expiresAt", newly
       FROM revoked
       UNION ALL
       SELECT t.app_id, a.client_id, COALESCE(t.revoked_at, now()), t.expires_at, false
       FROM app_tokens t JOIN apps a ON a.tenant_id = t.tenant_id AND a.id = t.app_id
       WHERE t.tenant_id = $1 AND t.jti = $2 AND NOT EXISTS (SELECT 1 FROM revoked)`,
      [jti],
    );
  }

  /** The tenant of the token a token id names (the CLI revokes by token id alone). */
  async tenantOf(db: CrossTenantSql, jti: string): Promise<number | undefined> {
    const row = await db.first<{ tenant_id: number }>(
      'SELECT tenant_id FROM app_tokens WHERE jti = $1',
      [jti],
    );
    return row?.tenant_id;
  }
}
