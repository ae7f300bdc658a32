import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookEndpointsRepository } from '../../src/webhooks/webhook-endpoints.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import {
  insertApp,
  insertDelivery,
  insertEndpoint,
  insertEvent,
  rowOf,
} from '../support/tenant-rows.js';

interface Endpoint {
  url: string;
  active: boolean;
  secret_ciphertext: Buffer;
}
interface Delivery {
  state: string;
}

/** Every method through tenant A's path beside tenant B's endpoints and deliveries. */
describe('webhook endpoints repository, two tenants', () => {
  const endpoints = new WebhookEndpointsRepository();
  let r: RepositoryDatabase;
  let appA: number;
  let appB: number;

  beforeAll(async () => {
    r = await repositoryDatabase();
    appA = await insertApp(r.inspect, r.tenantA);
    appB = await insertApp(r.inspect, r.tenantB);
  });
  afterAll(() => r.close());

  const values = { url: 'https://example.com/a', eventTypes: [], description: null };

  it("lockApp counts tenant A's app's endpoints; B's app is not A's", async () => {
    await insertEndpoint(r.inspect, r.tenantB, appB);
    await insertEndpoint(r.inspect, r.tenantB, appB);
    await insertEndpoint(r.inspect, r.tenantA, appA);
    expect(await r.inA((db) => endpoints.lockApp(db, appA))).toBe(1);
    expect(await r.inA((db) => endpoints.lockApp(db, appB))).toBe(0);
  });

  it("insert writes into tenant A and refuses B's app", async () => {
    const row = await endpoints.insert(r.a(), appA, {
      ...values,
      eventTypes: ['order.created'],
      secret: Buffer.from('s'),
    });
    expect(row).toMatchObject({ app_id: appA, url: values.url, active: true });
    const [{ tenant_id }]: Array<{ tenant_id: number }> = await r.inspect.query(
      'SELECT tenant_id FROM webhook_endpoints WHERE id = $1',
      [row.id],
    );
    expect(tenant_id).toBe(r.tenantA);
    await expect(
      endpoints.insert(r.a(), appB, {
        ...values,
        eventTypes: ['order.created'],
        secret: Buffer.from('s'),
      }),
    ).rejects.toThrow(/foreign key/);
  });

  it("list and find read tenant A's endpoints only", async () => {
    const own = await insertEndpoint(r.inspect, r.tenantA, appA);
    const other = await insertEndpoint(r.inspect, r.tenantB, appB);
    const listed = await endpoints.list(r.a(), appA);
    expect(listed.map((e) => e.id)).toContain(own);
    expect(listed.every((e) => e.app_id === appA)).toBe(true);
    expect(await endpoints.list(r.a(), appB)).toEqual([]);
    expect((await endpoints.find(r.a(), appA, own))?.id).toBe(own);
    expect(await endpoints.find(r.a(), appB, other)).toBeUndefined();
  });

  it("update, rotateSecret and remove change tenant A's endpoints only", async () => {
    const own = await insertEndpoint(r.inspect, r.tenantA, appA);
    const other = await insertEndpoint(r.inspect, r.tenantB, appB);
    const change = { url: 'https://example.com/changed', active: false };
    expect(await endpoints.update(r.a(), appB, other, change)).toBeUndefined();
    expect(
      await endpoints.rotateSecret(r.a(), appB, other, Buffer.from('new'), 60),
    ).toBeUndefined();
    expect(await endpoints.remove(r.a(), appB, other)).toBe(false);
    const untouched = (await rowOf<Endpoint>(r.inspect, 'webhook_endpoints', other))!;
    expect(untouched).toMatchObject({ url: 'https://example.com/hook', active: true });
    expect(untouched.secret_ciphertext).toEqual(Buffer.from([1]));

    expect(await endpoints.update(r.a(), appA, own, change)).toMatchObject(change);
    expect(await endpoints.rotateSecret(r.a(), appA, own, Buffer.from('new'), 60)).toBeDefined();
    expect((await rowOf<Endpoint>(r.inspect, 'webhook_endpoints', own))!.secret_ciphertext).toEqual(
      Buffer.from('new'),
    );
    expect(await endpoints.remove(r.a(), appA, own)).toBe(true);
    expect(await rowOf(r.inspect, 'webhook_endpoints', own)).toBeUndefined();
  });

  it("deliveries, delivery and requeue see tenant A's deliveries only", async () => {
    const endpointA = await insertEndpoint(r.inspect, r.tenantA, appA);
    const endpointB = await insertEndpoint(r.inspect, r.tenantB, appB);
    const eventA = await insertEvent(r.inspect, r.tenantA);
    const eventB = await insertEvent(r.inspect, r.tenantB);
    const deliveryA = await insertDelivery(
      r.inspect,
      r.tenantA,
      endpointA,
      eventA,
      "state = 'failed'",
    );
    const deliveryB = await insertDelivery(
      r.inspect,
      r.tenantB,
      endpointB,
      eventB,
      "state = 'failed'",
    );

    expect(await endpoints.deliveries(r.a(), endpointB, 10, 0)).toEqual({ rows: [], total: 0 });
    expect(await endpoints.delivery(r.a(), deliveryB)).toBeUndefined();
    expect(await r.inA((db) => endpoints.requeue(db, endpointB, deliveryB))).toBeUndefined();
    expect((await rowOf<Delivery>(r.inspect, 'webhook_deliveries', deliveryB))!.state).toBe(
      'failed',
    );

    const page = await endpoints.deliveries(r.a(), endpointA, 10, 0);
    expect(page.total).toBe(1);
    expect(page.rows.map((d) => d.id)).toEqual([deliveryA]);
    expect(await r.inA((db) => endpoints.requeue(db, endpointA, deliveryA))).toEqual({
      requeued: true,
    });
    expect(await r.inA((db) => endpoints.requeue(db, endpointA, deliveryA))).toEqual({
      requeued: false,
    });
    expect((await endpoints.delivery(r.a(), deliveryA))?.state).toBe('pending');
  });
});
