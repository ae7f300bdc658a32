import { describe, expect, it } from 'vitest';
import { CROSS_TENANT_MARK, TENANT_MARK } from './statement-marks.js';
import { auditFailure, UnscopedStatementError, unscopedTable } from './statement-audit.js';
import { TENANT_TABLES } from './tenant-tables.js';

describe('statement audit', () => {
  it('finds every tenant table named by an unmarked statement', () => {
    for (const table of TENANT_TABLES) {
      expect(unscopedTable(`SELECT count(*) FROM ${table}`)).toBe(table);
      expect(unscopedTable(`UPDATE "${table}" SET x = 1`)).toBe(table);
      expect(unscopedTable(`DELETE FROM public.x USING ${table}\nWHERE true`)).toBe(table);
    }
    expect(unscopedTable('WITH o AS (SELECT * FROM ORDERS) SELECT 1')).toBe('ORDERS');
    expect(unscopedTable('DELETE FROM public.idempotency_keys')).toBe('idempotency_keys');
    expect(unscopedTable('TABLE "public" . "customers"')).toBe('customers');
    expect(unscopedTable('SELECT * FROM U&"\\006Frders"')).toBe('a Unicode-escaped identifier');
  });

  it('refuses a prepared statement sent by name alone (its text cannot be audited)', () => {
    const client = {};
    expect(auditFailure(client, { name: 'p_0123', values: [2] })).toBeInstanceOf(
      UnscopedStatementError,
    );
    expect(auditFailure(client, { name: 'p_0123', text: 'SELECT 1', values: [] })).toBeUndefined();
    expect(auditFailure(client, 'SELECT * FROM orders')).toBeInstanceOf(UnscopedStatementError);
  });

  it('lets marked statements through', () => {
    expect(
      unscopedTable(`${TENANT_MARK}SELECT * FROM orders WHERE tenant_id = $1`),
    ).toBeUndefined();
    expect(unscopedTable(`${CROSS_TENANT_MARK}maintenance */ DELETE FROM events`)).toBeUndefined();
  });

  it('a mark anywhere but at the start does not count', () => {
    expect(unscopedTable(`SELECT * FROM orders ${TENANT_MARK}`)).toBe('orders');
    expect(unscopedTable(` ${TENANT_MARK}SELECT * FROM orders`)).toBe('orders');
  });

  it('ignores statements on other tables and longer identifiers', () => {
    for (const text of [
      'BEGIN',
      'COMMIT',
      'SELECT 1',
      'SELECT * FROM tenants WHERE id = $1',
      'SELECT * FROM pgboss.job',
      'SELECT * FROM rate_limits',
      'SELECT orders_total FROM service_settings',
      'ALTER INDEX orders_pkey RENAME TO x',
      'SELECT * FROM x.orders',
    ]) {
      expect({ text, table: unscopedTable(text) }).toEqual({ text, table: undefined });
    }
  });
});
