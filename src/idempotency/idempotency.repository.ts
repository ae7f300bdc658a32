import { Injectable } from '@nestjs/common';
import type { HttpResult } from '../common/http/http-result.js';
import type { TenantSql } from '../database/sql/tenant-sql.js';

/** Whose key it is within the tenant (the path's): the app, the route, the key. */
export interface IdempotencyScope {
  appId: number;
  method: string;
  path: string;
  key: string;
}

export interface StoredResponse extends HttpResult {
  requestHash: Buffer;
}

/**
 * Stored responses under (tenant, app, method, path, key); every statement runs in the
 * caller's unit of work.
 */
@Injectable()
export class IdempotencyRepository {
  /**
   * Takes the key's transaction-scoped advisory lock without waiting: false means another
   * request with this key is in flight right now. The lock id is a 64-bit hash of the scope,
   * seeded with the tenant.
   */
  async tryLock(db: TenantSql, scope: IdempotencyScope): Promise<boolean> {
    const rows = await db.rows<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($2, $1)) AS locked',
      [JSON.stringify(params(scope))],
      true,
    );
    return rows[0].locked;
  }

  /** The unexpired stored response, if any; an expired one is deleted and ignored (one statement). */
  async find(db: TenantSql, scope: IdempotencyScope): Promise<StoredResponse | undefined> {
    const rows = await db.rows<{
      request_hash: Buffer;
      response_status: number;
      response_body: unknown;
      response_headers: Record<string, string>;
    }>(
      `WITH expired AS (
         DELETE FROM idempotency_keys WHERE tenant_id = $1 AND app_id = $2 AND method = $3
           AND path = $4 AND key = $5 AND expires_at <= now())
       SELECT request_hash, response_status, response_body, response_headers FROM idempotency_keys
         WHERE tenant_id = $1 AND app_id = $2 AND method = $3 AND path = $4 AND key = $5
           AND expires_at > now()`,
      params(scope),
      true,
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

  /**
   * The primary key is the final arbiter: a second insert for the key fails and rolls back.
   * A response that is an Order names it (`order_id`), so that an erasure finds the copies of
   * a person's orders by index (customer-erasure.repository.ts).
   */
  async save(
    db: TenantSql,
    scope: IdempotencyScope,
    hash: Buffer,
    response: HttpResult,
    ttlHours: number,
  ): Promise<void> {
    await db.rows(
      `INSERT INTO idempotency_keys
         (tenant_id, app_id, method, path, key, request_hash, response_status, response_body,
          response_headers, expires_at, order_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(hours => $10), $11)`,
      [
        ...params(scope),
        hash,
        response.status,
        JSON.stringify(response.body),
        JSON.stringify(response.headers),
        ttlHours,
        orderIdOf(response.body),
      ],
      true,
    );
  }
}

/**
 * The order a stored body is a copy of: an Order (order create, cancel) has an `id` and a
 * `shipping_address`, the person's data an erasure redacts; any other body names none.
 */
export function orderIdOf(body: unknown): number | null {
  if (typeof body !== 'object' || body === null || !('shipping_address' in body)) return null;
  const id = (body as { id?: unknown }).id;
  return Number.isSafeInteger(id) && (id as number) > 0 ? (id as number) : null;
}

function params(s: IdempotencyScope): unknown[] {
  return [s.appId, s.method, s.path, s.key];
}
