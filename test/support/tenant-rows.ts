import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

/**
 * Rows of one tenant, written through a repository spec's inspection connection (outside
 * the audit): the arrangement of two-tenant specs. Each returns the new row's id (an
 * event's seq).
 */
export async function insertApp(
  inspect: DataSource,
  tenantId: number,
  scopes: string[] = ['orders:read'],
): Promise<number> {
  const rows: Array<{ id: number }> = await inspect.query(
    `INSERT INTO apps (tenant_id, name, client_id, secret_hash, secret_last4, approved_scopes)
     VALUES ($1, 'app', $2, '\\x00', 'abcd', $3) RETURNING id`,
    [tenantId, `client_${randomUUID()}`, scopes],
  );
  return rows[0].id;
}

export async function insertCustomer(
  inspect: DataSource,
  tenantId: number,
  email: string,
  passwordHash = 'hash-1',
): Promise<number> {
  const rows: Array<{ id: number }> = await inspect.query(
    `INSERT INTO customers (tenant_id, name, email, password_hash) VALUES ($1, 'C', $2, $3)
     RETURNING id`,
    [tenantId, email, passwordHash],
  );
  return rows[0].id;
}

/** A live session (an hour left) unless `expiresIn` says otherwise. */
export async function insertSession(
  inspect: DataSource,
  tenantId: number,
  customerId: number,
  appId: number,
  expiresIn = '1 hour',
): Promise<string> {
  const rows: Array<{ id: string }> = await inspect.query(
    `INSERT INTO customer_sessions (id, tenant_id, customer_id, app_id, scopes, expires_at)
     VALUES ($1, $2, $3, $4, '{}', now() + $5::interval) RETURNING id`,
    [randomUUID(), tenantId, customerId, appId, expiresIn],
  );
  return rows[0].id;
}

export async function insertEndpoint(
  inspect: DataSource,
  tenantId: number,
  appId: number,
  eventTypes: string[] = ['order.created'],
): Promise<number> {
  const rows: Array<{ id: number }> = await inspect.query(
    `INSERT INTO webhook_endpoints (tenant_id, app_id, url, event_types, secret_ciphertext, created_at)
     VALUES ($1, $2, 'https://example.com/hook', $3, '\\x01', now() - interval '1 minute')
     RETURNING id`,
    [tenantId, appId, eventTypes],
  );
  return rows[0].id;
}

export async function insertEvent(
  inspect: DataSource,
  tenantId: number,
  type = 'order.created',
  createdAt = 'now()',
): Promise<number> {
  const rows: Array<{ seq: number }> = await inspect.query(
    `INSERT INTO events (tenant_id, type, data, created_at)
     VALUES ($1, $2, '{"object": {}}', ${createdAt}) RETURNING seq`,
    [tenantId, type],
  );
  return rows[0].seq;
}

/** A pending delivery due now, not in line, unless `set` (SQL assignments) says otherwise. */
export async function insertDelivery(
  inspect: DataSource,
  tenantId: number,
  endpointId: number,
  eventSeq: number,
  set = '',
): Promise<number> {
  const rows: Array<{ id: number }> = await inspect.query(
    `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_seq, next_attempt_at)
     VALUES ($1, $2, $3, now()) RETURNING id`,
    [tenantId, endpointId, eventSeq],
  );
  if (set) {
    await inspect.query(`UPDATE webhook_deliveries SET ${set} WHERE id = $1`, [rows[0].id]);
  }
  return rows[0].id;
}

/** One row of `table` by id, as it is now. */
export async function rowOf<T = Record<string, unknown>>(
  inspect: DataSource,
  table: string,
  id: number | string,
): Promise<T | undefined> {
  const rows: T[] = await inspect.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  return rows[0];
}
