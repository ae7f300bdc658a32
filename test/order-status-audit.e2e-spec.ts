import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuditRepository } from '../src/audit/audit.repository.js';
import type { AdminContext } from '../src/common/admin-context.js';
import { OrdersService } from '../src/orders/orders.service.js';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import { ensureBuilt, processBudget, runCli } from './support/processes.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * `order set-status` by an admin: the status change, its history row, its event and its audit
 * row are one unit of work. The audit row exists exactly when the change does.
 */
describe('an admin status change and its audit row commit together', () => {
  let t: TestApp;
  let shop: Shop;
  const admin: AdminContext = { kind: 'admin', actor: 'cli:ops' };

  beforeAll(async () => {
    t = await createTestApp();
    shop = await newShop(t);
  });
  afterAll(() => t.close());

  /** What an admin change of `orderId` left: the status, history rows, events, audit rows. */
  async function traces(orderId: number) {
    const [row] = await t.dataSource.query<
      Array<{ status: string; changes: number; events: number; audits: number }>
    >(
      `SELECT (SELECT status FROM orders WHERE tenant_id = $1 AND id = $2) AS status,
         (SELECT count(*)::int FROM order_status_changes
          WHERE tenant_id = $1 AND order_id = $2 AND actor = 'cli:ops') AS changes,
         (SELECT count(*)::int FROM events
          WHERE tenant_id = $1 AND order_id = $2 AND type = 'order.status_changed') AS events,
         (SELECT count(*)::int FROM audit_log WHERE tenant_id = $1 AND action = 'order.set_status'
          AND target_id = $2::text AND actor = 'cli:ops') AS audits`,
      [shop.tenantId, orderId],
    );
    return row;
  }

  it('a change writes its audit row; a refused change writes neither', async () => {
    const order = await placeOrder(t, shop);
    const orders = t.app.get(OrdersService);
    const paid = await orders.changeStatus(admin, shop.tenantId, order.id, 'paid');
    expect(paid.status).toBe('paid');
    expect(await traces(order.id)).toEqual({ status: 'paid', changes: 1, events: 1, audits: 1 });
    const [audit] = await t.dataSource.query<Array<{ details: unknown }>>(
      `SELECT details FROM audit_log
       WHERE tenant_id = $1 AND action = 'order.set_status' AND target_id = $2::text`,
      [shop.tenantId, String(order.id)],
    );
    expect(audit.details).toEqual({ status: 'paid' });

    await expect(orders.changeStatus(admin, shop.tenantId, order.id, 'pending')).rejects.toThrow(
      expect.objectContaining({ code: 'invalid_transition' }),
    );
    expect(await traces(order.id)).toEqual({ status: 'paid', changes: 1, events: 1, audits: 1 });
  });

  it('when the audit row cannot be written, the change and its event roll back with it', async () => {
    const order = await placeOrder(t, shop);
    const audit = t.app.get(AuditRepository);
    const failing = vi
      .spyOn(audit, 'record')
      .mockRejectedValueOnce(new Error('the audit log is unavailable'));
    try {
      await expect(
        t.app.get(OrdersService).changeStatus(admin, shop.tenantId, order.id, 'cancelled'),
      ).rejects.toThrow('the audit log is unavailable');
      expect(failing).toHaveBeenCalledTimes(1);
    } finally {
      failing.mockRestore();
    }
    expect(await traces(order.id)).toEqual({
      status: 'pending',
      changes: 0,
      events: 0,
      audits: 0,
    });
  });

  it('an app changes a status without an audit row', async () => {
    const order = await placeOrder(t, shop);
    const res = await t.http
      .post(`/v1/orders/${order.id}/status`)
      .set('authorization', `Bearer ${shop.token}`)
      .send({ status: 'paid' });
    expect(res.status).toBe(200);
    const rows: unknown[] = await t.dataSource.query(
      `SELECT 1 FROM audit_log
       WHERE tenant_id = $1 AND action = 'order.set_status' AND target_id = $2::text`,
      [shop.tenantId, String(order.id)],
    );
    expect(rows).toEqual([]);
  });

  it(
    'order set-status from the CLI writes the change with its audit row',
    { timeout: processBudget(1) },
    async () => {
      ensureBuilt();
      const order = await placeOrder(t, shop);
      const env = { DATABASE_URL: t.databaseUrl, LOG_LEVEL: 'warn' };
      const args = ['--tenant', String(shop.tenantId), '--order', String(order.id)];
      const result = await runCli(
        ['order', 'set-status', ...args, '--status', 'paid', '--json'],
        env,
      );
      expect(result.status).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ id: order.id, status: 'paid' });
      const rows = await t.dataSource.query<Array<{ actor: string; details: unknown }>>(
        `SELECT actor, details FROM audit_log
         WHERE tenant_id = $1 AND action = 'order.set_status' AND target_id = $2::text`,
        [shop.tenantId, String(order.id)],
      );
      expect(rows).toEqual([{ actor: expect.stringMatching(/^cli/), details: { status: 'paid' } }]);
      const [change] = await t.dataSource.query<Array<{ actor: string }>>(
        `SELECT actor FROM order_status_changes WHERE tenant_id = $1 AND order_id = $2`,
        [shop.tenantId, order.id],
      );
      expect(change.actor).toBe(rows[0].actor);
    },
  );
});
