import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entitlementPairs } from '../../src/webhooks/event-entitlements.js';
import {
  WebhookDispatchRepository,
  type LogPosition,
} from '../../src/webhooks/webhook-dispatch.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import {
  insertApp,
  insertEndpoint,
  insertEvent,
  untilEventsVisible,
} from '../support/tenant-rows.js';

/**
 * The dispatcher's position (shared, one row) and its fan-out, the webhook-dispatch path:
 * one batch of the log turns the events of both tenants into deliveries, each to its own
 * tenant's endpoints only.
 */
describe('webhook dispatch repository, two tenants', () => {
  const dispatch = new WebhookDispatchRepository();
  let r: RepositoryDatabase;
  let endpointA: number;
  let endpointB: number;

  beforeAll(async () => {
    r = await repositoryDatabase();
    endpointA = await insertEndpoint(r.inspect, r.tenantA, await insertApp(r.inspect, r.tenantA));
    endpointB = await insertEndpoint(r.inspect, r.tenantB, await insertApp(r.inspect, r.tenantB));
  });
  afterAll(() => r.close());

  const fanOut = (from: LogPosition, limit = 500) =>
    r.transactions.run((db) =>
      dispatch.fanOut(db.crossTenant('webhook-dispatch'), from, limit, entitlementPairs()),
    );

  it('holds the position in one unit at a time, and moves it', async () => {
    expect(await r.transactions.run((db) => dispatch.holdPosition(db.shared()))).toEqual({
      txid: '0',
      seq: 0,
    });
    let release!: () => void;
    let held!: () => void;
    const heldNow = new Promise<void>((resolve) => (held = resolve));
    const holder = r.transactions.run(async (db) => {
      await dispatch.holdPosition(db.shared());
      held();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await heldNow;
    expect(await r.transactions.run((db) => dispatch.holdPosition(db.shared()))).toBeUndefined();
    release();
    await holder;

    await r.transactions.run((db) => dispatch.movePosition(db.shared(), { txid: '5', seq: 7 }));
    expect(await r.transactions.run((db) => dispatch.holdPosition(db.shared()))).toEqual({
      txid: '5',
      seq: 7,
    });
    await r.transactions.run((db) => dispatch.movePosition(db.shared(), { txid: '0', seq: 0 }));
  });

  it("fans a batch of both tenants' events out to each tenant's own endpoints", async () => {
    const seqA = await insertEvent(r.inspect, r.tenantA, 'order.created');
    const seqB = await insertEvent(r.inspect, r.tenantB, 'order.created');
    await insertEvent(r.inspect, r.tenantB, 'customer.created'); // no endpoint takes it
    const start = { txid: '0', seq: 0 };
    await untilEventsVisible(r.inspect);

    const first = await fanOut(start, 1);
    expect(first).toMatchObject({ events: 1, tenants: [r.tenantA] });

    const all = await fanOut(start);
    expect(all.events).toBe(3);
    expect(all.tenants).toEqual([r.tenantB]); // A's delivery exists already: not made twice
    const rows: unknown[] = await r.inspect.query(
      'SELECT tenant_id, endpoint_id, event_seq FROM webhook_deliveries ORDER BY tenant_id',
    );
    expect(rows).toEqual(
      [
        { tenant_id: r.tenantA, endpoint_id: endpointA, event_seq: seqA },
        { tenant_id: r.tenantB, endpoint_id: endpointB, event_seq: seqB },
      ].sort((x, y) => x.tenant_id - y.tenant_id),
    );

    expect(await fanOut(all.last!)).toEqual({ events: 0, tenants: [], last: undefined });
  });
});
