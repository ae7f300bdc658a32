import { Injectable } from '@nestjs/common';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/** A private app: OAuth client of one tenant. Its secret's hash never leaves the repository. */
export interface AppRow {
  tenantId: number;
  id: number;
  name: string;
  clientId: string;
  secretLast4: string;
  approvedScopes: string[];
  active: boolean;
  /** Bumped by secret rotation and scope changes; tokens issued before carry the old value. */
  credentialsVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What an admin change sets; the rest stays as it is. */
export interface AppChanges {
  /** HMAC-SHA-256 of the secret under the server pepper (client-secret.ts). */
  secretHash?: Buffer;
  secretLast4?: string;
  approvedScopes?: string[];
  active?: boolean;
  credentialsVersion?: number;
}

const COLUMNS = `tenant_id AS "tenantId", id, name, client_id AS "clientId",
  secret_last4 AS "secretLast4", approved_scopes AS "approvedScopes", active,
  credentials_version AS "credentialsVersion", created_at AS "createdAt", updated_at AS "updatedAt"`;

@Injectable()
export class AppsRepository {
  async insert(
    db: TenantSql,
    app: {
      name: string;
      clientId: string;
      secretHash: Buffer;
      secretLast4: string;
      approvedScopes: string[];
    },
  ): Promise<AppRow> {
    const [row] = await db.rows<AppRow>(
      `INSERT INTO apps (tenant_id, name, client_id, secret_hash, secret_last4, approved_scopes)
       VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${COLUMNS}`,
      [app.name, app.clientId, app.secretHash, app.secretLast4, app.approvedScopes],
    );
    return row;
  }

  list(db: TenantSql): Promise<AppRow[]> {
    return db.rows<AppRow>(`SELECT ${COLUMNS} FROM apps WHERE tenant_id = $1 ORDER BY id`);
  }

  /** The app, locked until the unit of work ends (admin changes of one app go one at a time). */
  lock(db: TenantSql, clientId: string): Promise<AppRow | undefined> {
    return db.first<AppRow>(
      `SELECT ${COLUMNS} FROM apps WHERE tenant_id = $1 AND client_id = $2 FOR UPDATE`,
      [clientId],
    );
  }

  /** The app as changed; undefined when the tenant has no app `id`. */
  update(db: TenantSql, id: number, changes: AppChanges): Promise<AppRow | undefined> {
    return db.first<AppRow>(
      `UPDATE apps SET
         secret_hash = COALESCE($3, secret_hash),
         secret_last4 = COALESCE($4, secret_last4),
         approved_scopes = COALESCE($5, approved_scopes),
         active = COALESCE($6, active),
         credentials_version = COALESCE($7, credentials_version),
         updated_at = now()
       WHERE tenant_id = $1 AND id = $2
       RETURNING ${COLUMNS}`,
      [
        id,
        changes.secretHash ?? null,
        changes.secretLast4 ?? null,
        changes.approvedScopes ?? null,
        changes.active ?? null,
        changes.credentialsVersion ?? null,
      ],
    );
  }
}
