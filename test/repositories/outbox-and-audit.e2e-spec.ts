import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRepository } from '../../src/audit/audit.repository.js';
import { OutboxRepository } from '../../src/outbox/outbox.repository.js';
import { UnscopedStatementError } from '../../src/database/sql/statement-audit.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';

describe('outbox and audit repositories, two tenants', () => {
  let r: RepositoryDatabase;
  beforeAll(async () => {
    r = await repositoryDatabase();
  });
  afterAll(() => r.close());

  it('appends events to the bound tenant only', async () => {
    await r.transactions.run((db) =>
      new OutboxRepository().append(db.tenant(r.tenantA), [
        { type: 'customer.created', data: { object: { id: 1 } } },
        { type: 'order.created', orderId: 9, data: { object: { id: 9 } } },
      ]),
    );
    const rows: Array<{ tenant_id: number; type: string }> = await r.inspect.query(
      'SELECT tenant_id, type FROM events ORDER BY seq',
    );
    expect(rows).toEqual([
      { tenant_id: r.tenantA, type: 'customer.created' },
      { tenant_id: r.tenantA, type: 'order.created' },
    ]);
  });

  it('writes an audit row for the bound tenant, with the admin as actor', async () => {
    await r.transactions.run((db) =>
      new AuditRepository().record(
        db.tenant(r.tenantB),
        { actor: 'cli:ops' },
        { action: 'x.done', targetType: 'x', targetId: 3 },
      ),
    );
    const rows: unknown[] = await r.inspect.query(
      'SELECT tenant_id, actor, action, target_id, details FROM audit_log',
    );
    expect(rows).toEqual([
      { tenant_id: r.tenantB, actor: 'cli:ops', action: 'x.done', target_id: '3', details: {} },
    ]);
  });

  it('the service pool refuses a statement on a tenant table outside the paths', async () => {
    await expect(
      r.transactions.run((db) => db.shared().rows('SELECT count(*) FROM events')),
    ).rejects.toBeInstanceOf(UnscopedStatementError);
  });
});
