import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { preparedQuery } from '../database/prepared-query.js';
import type { HttpResult } from '../common/http/http-result.js';

export interface IdempotencyScope {
  tenantId: number;
  appId: number;
  method: string;
  path: string;
  key: string;
}

export interface StoredResponse extends HttpResult {
  requestHash: Buffer;
}

/** Stored responses under (tenant, app, method, path, key); all calls run in the caller's transaction. */
@Injectable()
export class IdempotencyStore {
  /**
   * Takes the key's transaction-scoped advisory lock without waiting: false means another
   * request with this key is in flight right now.
   */
  async tryLock(manager: EntityManager, scope: IdempotencyScope): Promise<boolean> {
    const rows = await preparedQuery<{ locked: boolean }>(
      manager,
      'SELECT pg_try_advisory_xact_lock($1) AS locked',
      [lockId(scope)],
    );
    return rows[0].locked;
  }

  /** The unexpired stored response, if any; an expired one is deleted and ignored (one statement). */
  async find(manager: EntityManager, scope: IdempotencyScope): Promise<StoredResponse | undefined> {
    const rows = await preparedQuery<{
      request_hash: Buffer;
      response_status: number;
      response_body: unknown;
      response_headers: Record<string, string>;
    }>(
      manager,
      `WITH expired AS (
         DELETE FROM idempotency_keys WHERE tenant_id = $1 AND app_id = $2 AND method = $3
           AND path = $4 AND key = $5 AND expires_at <= now())
       SELECT request_hash, response_status, response_body, response_headers FROM idempotency_keys
         WHERE tenant_id = $1 AND app_id = $2 AND method = $3 AND path = $4 AND key = $5
           AND expires_at > now()`,
      params(scope),
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      requestHash: row.request_hash,
      status: row.response_status,
      headers: row.response_headers,
      body: row.response_body,
    };
  }

  /** The primary key is the final arbiter: a second insert for the key fails and rolls back. */
  async save(
    manager: EntityManager,
    scope: IdempotencyScope,
    hash: Buffer,
    response: HttpResult,
    ttlHours: number,
  ): Promise<void> {
    await preparedQuery(
      manager,
      `INSERT INTO idempotency_keys
         (tenant_id, app_id, method, path, key, request_hash, response_status, response_body, response_headers, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(hours => $10))`,
      [
        ...params(scope),
        hash,
        response.status,
        JSON.stringify(response.body),
        JSON.stringify(response.headers),
        ttlHours,
      ],
    );
  }

  /** Deletes expired keys; returns how many. */
  async purgeExpired(manager: EntityManager): Promise<number> {
    const rows: unknown[] = await manager.query(
      `WITH purged AS (DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING 1) SELECT 1 FROM purged`,
    );
    return rows.length;
  }
}

function params(s: IdempotencyScope): unknown[] {
  return [s.tenantId, s.appId, s.method, s.path, s.key];
}

/** A signed 64-bit advisory lock id from the whole scope. */
function lockId(s: IdempotencyScope): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(params(s)))
    .digest();
  return digest.readBigInt64BE(0).toString();
}
