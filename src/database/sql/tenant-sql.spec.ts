import type { EntityManager } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { TenantScopeError, TenantSql } from './tenant-sql.js';

const noManager = {} as EntityManager;
const open = () => undefined;

describe('TenantSql', () => {
  it('refuses to be bound without a real tenant', () => {
    for (const tenant of [0, -1, 1.5, Number.NaN, undefined as unknown as number]) {
      expect(() => new TenantSql(noManager, open, tenant)).toThrow(TenantScopeError);
    }
  });

  it('refuses a statement that never uses its tenant ($1) before it reaches the database', async () => {
    const db = new TenantSql(noManager, open, 7);
    await expect(db.rows('SELECT * FROM orders')).rejects.toThrow(TenantScopeError);
    await expect(db.rows('SELECT * FROM orders WHERE id = $10', [])).rejects.toThrow(
      TenantScopeError,
    );
  });

  it('refuses such a statement as a prepared one too, on every run (a refusal is not kept)', async () => {
    const db = new TenantSql(noManager, open, 7);
    for (let run = 0; run < 2; run++) {
      await expect(db.rows('SELECT * FROM orders WHERE id = $2', [1], true)).rejects.toThrow(
        TenantScopeError,
      );
    }
  });
});
