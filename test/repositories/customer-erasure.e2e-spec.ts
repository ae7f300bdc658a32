import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CustomerErasureRepository,
  REDACT_IDEMPOTENT_RESPONSES_SQL,
} from '../../src/customers/customer-erasure.repository.js';
import {
  IdempotencyRepository,
  type IdempotencyScope,
} from '../../src/idempotency/idempotency.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import { insertApp } from '../support/tenant-rows.js';

/** Stored responses of the tenant beside the person's: the erasure must not read them. */
const TENANT_KEYS = 60_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

const order = (id: number, name: string) => ({
  id,
  customer: { id: null, name, email: `${name.toLowerCase()}@example.com`, phone: '+1 555' },
  shipping_address: {
    country: 'GB',
    city: 'London',
    district: 'Soho',
    address: '1 Lane',
    postal_code: 'W1D 3QU',
  },
  total: 10,
});

/** The erasure's stored idempotent responses: found by order, at the cost of the person's orders. */
describe('erasure of stored idempotent responses', () => {
  let r: RepositoryDatabase;
  let appA: number;
  const keys = new IdempotencyRepository();
  const erasure = new CustomerErasureRepository();
  const scope = (app: number, key: string): IdempotencyScope => ({
    appId: app,
    method: 'POST',
    path: '/v1/orders',
    key,
  });
  const save = (tenantId: number, app: number, key: string, body: unknown) =>
    r.transactions.run((db) =>
      keys.save(
        db.tenant(tenantId),
        scope(app, key),
        Buffer.alloc(32),
        { status: 201, headers: {}, body },
        24,
      ),
    );
  const bodyOf = async (tenantId: number, key: string): Promise<unknown> => {
    const [row] = await r.inspect.query<Array<{ response_body: unknown }>>(
      `SELECT response_body FROM idempotency_keys WHERE tenant_id = $1 AND key = $2`,
      [tenantId, key],
    );
    return row.response_body;
  };

  beforeAll(async () => {
    r = await repositoryDatabase();
    appA = await insertApp(r.inspect, r.tenantA);
    await insertApp(r.inspect, r.tenantB, { id: appA });
    // The tenant's other keys: Orders of other people (each naming its order), import acks.
    await r.inspect.query(
      `INSERT INTO idempotency_keys (tenant_id, app_id, method, path, key, request_hash,
         response_status, response_body, expires_at, order_id)
       SELECT $1, $2, 'POST', '/v1/orders', 'other-' || g, '\\x00', 201,
         CASE WHEN g % 2 = 0
           THEN jsonb_build_object('id', 1000000 + g, 'customer', jsonb_build_object('name', 'Other'),
             'shipping_address', jsonb_build_object('address', 'Elsewhere 1'))
           ELSE jsonb_build_object('status', 'queued', 'external_order_id', 'E' || g) END,
         now() + interval '1 day',
         CASE WHEN g % 2 = 0 THEN 1000000 + g END
       FROM generate_series(1, $3::int) g`,
      [r.tenantA, appA, TENANT_KEYS],
    );
    await r.inspect.query('ANALYZE idempotency_keys');
  });
  afterAll(() => r.close());

  it('a stored Order names its order; any other body names none', async () => {
    await save(r.tenantA, appA, 'named-order', order(41, 'Named'));
    await save(r.tenantA, appA, 'named-ack', { status: 'queued', external_order_id: 'X' });
    await save(r.tenantA, appA, 'named-refund', { id: 41, order_id: 41, amount: 1 });
    const named = await r.inspect.query<Array<{ key: string; order_id: string | null }>>(
      `SELECT key, order_id::text FROM idempotency_keys WHERE tenant_id = $1 AND key LIKE 'named-%'
       ORDER BY key`,
      [r.tenantA],
    );
    expect(named).toEqual([
      { key: 'named-ack', order_id: null },
      { key: 'named-order', order_id: '41' },
      { key: 'named-refund', order_id: null },
    ]);
  });

  it('the plan reads the person’s keys by index, never the tenant’s other keys', async () => {
    const runner = r.inspect.createQueryRunner();
    await runner.startTransaction();
    try {
      const [{ 'QUERY PLAN': plans }] = (await runner.query(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${REDACT_IDEMPOTENT_RESPONSES_SQL}`,
        [r.tenantA, [1000002, 1000004]],
      )) as Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>;
      const nodes = nodesOf(plans[0].Plan);
      const reads = nodes.filter((n) => n['Relation Name'] === 'idempotency_keys');
      expect(reads.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      expect(nodes.map((n) => n['Index Name'])).toContain('idempotency_keys_order_idx');
      // Two orders' keys: a few index and heap pages, not the tenant's thousands.
      const [{ pages }] = (await runner.query(
        `SELECT relpages AS pages FROM pg_class WHERE relname = 'idempotency_keys'`,
      )) as Array<{ pages: number }>;
      const root = plans[0].Plan;
      const touched = (root['Shared Hit Blocks'] ?? 0) + (root['Shared Read Blocks'] ?? 0);
      expect(pages).toBeGreaterThan(500);
      expect(touched).toBeLessThan(40);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('redacts the copies of the person’s orders only, in this tenant only', async () => {
    await save(r.tenantA, appA, 'mine-1', order(7, 'Ada'));
    await save(r.tenantA, appA, 'mine-2', { ...order(8, 'Ada'), status: 'cancelled' });
    await save(r.tenantA, appA, 'theirs', order(9, 'Bob'));
    await save(r.tenantB, appA, 'mine-1', order(7, 'Ada'));

    await r.inA((db) => erasure.redactIdempotentResponses(db, [7, 8]));

    for (const [key, id] of [
      ['mine-1', 7],
      ['mine-2', 8],
    ] as const) {
      expect(await bodyOf(r.tenantA, key)).toMatchObject({
        id,
        customer: { name: null, email: null, phone: null },
        shipping_address: {
          country: 'GB',
          city: 'London',
          district: null,
          address: null,
          postal_code: 'W1D',
        },
        total: 10,
      });
    }
    expect(await bodyOf(r.tenantA, 'theirs')).toEqual(order(9, 'Bob'));
    expect(await bodyOf(r.tenantB, 'mine-1')).toEqual(order(7, 'Ada'));
    expect(await bodyOf(r.tenantA, 'other-2')).toMatchObject({
      customer: { name: 'Other' },
      shipping_address: { address: 'Elsewhere 1' },
    });
  });
});
