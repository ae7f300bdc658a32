import { Db } from '../src/database/sql/db.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../src/queue/job-queue.service.js';
import { deliveryJob } from '../src/webhooks/webhook-delivery-job.js';
import { WebhookDeliveryWorker } from '../src/webhooks/webhook-delivery-worker.service.js';
import { WebhookRecovery } from '../src/webhooks/webhook-recovery.service.js';
import { within } from './support/eventually.js';
import { newShop, placeOrder, type Shop } from './support/factories.js';
import { startWorker, type ServerProcess } from './support/processes.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { webhookInstancesEnv } from './support/webhook-instances.js';
import { peakInFlight, WebhookReceiver } from './support/webhook-receiver.js';

const ENDPOINTS = '/v1/webhook-endpoints';

interface Delivery {
  id: number;
  attempts: number;
  state: string;
  last_status_code: number | null;
}

/**
 * An attempt is claimed in the database before it is sent: two instances on one database,
 * any number of redeliveries, one attempt of a delivery in flight at a time, and `attempts`
 * equal to the requests the receiver got. A claim whose process died is made again.
 */
describe('webhook attempts are claimed', () => {
  let env: Record<string, string>;
  let receiver: WebhookReceiver;
  const children: ServerProcess[] = [];
  const instances: TestApp[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    env = await webhookInstancesEnv({ WEBHOOK_TIMEOUT_SECONDS: '20' });
  });
  afterAll(async () => {
    for (const child of children) if (child.child.exitCode === null) child.child.kill('SIGKILL');
    receiver.respond = () => 200; // lets held requests end, so the instances stop at once
    for (const t of instances.splice(0)) await t.close();
    await receiver.close();
  });

  /** Another instance on the shared database (closed after the test, or by `stop`). */
  async function instance(extra: Record<string, string> = {}): Promise<TestApp> {
    const t = await createTestApp({ ...env, ...extra }, [], undefined, env.DATABASE_URL);
    instances.push(t);
    return t;
  }
  async function stop(t: TestApp): Promise<void> {
    instances.splice(instances.indexOf(t), 1);
    await t.close();
  }

  const auth = (s: Shop) => ({ authorization: `Bearer ${s.token}` });
  async function newEndpoint(s: Shop, t: TestApp): Promise<{ id: number; path: string }> {
    const path = `/claims/${randomBytes(4).toString('hex')}`;
    const res = await t.http
      .post(ENDPOINTS)
      .set(auth(s))
      .send({ url: receiver.url(path), event_types: ['order.created'] });
    expect(res.status).toBe(201);
    return { id: res.body.id as number, path };
  }
  const onlyDelivery = async (t: TestApp, s: Shop, endpointId: number): Promise<Delivery> => {
    const res = await t.http.get(`${ENDPOINTS}/${endpointId}/deliveries`).set(auth(s));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    return res.body.data[0] as Delivery;
  };
  /** Jobs of the delivery still to run (and running, with `running`). */
  const queuedJobs = async (t: TestApp, deliveryId: number, running = false): Promise<number> => {
    const [{ n }] = await t.dataSource.query<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM pgboss.job
       WHERE name = 'webhook-delivery' AND state <= $2 AND (data->>'deliveryId')::bigint = $1`,
      [deliveryId, running ? 'active' : 'retry'],
    );
    return n;
  };

  it('30 parallel redeliveries over two instances: one attempt in flight, attempts = requests received', async () => {
    const [a, b] = [await instance(), await instance()];
    const s = await newShop(a);
    const endpoint = await newEndpoint(s, a);
    const delivery = async () => onlyDelivery(a, s, endpoint.id);
    await placeOrder(a, s);
    await within(5000, () => Promise.resolve(receiver.at(endpoint.path).length === 1));
    await within(5000, async () => (await delivery()).state === 'succeeded');
    const { id } = await delivery();
    const redeliver = (i: number) =>
      (i % 2 ? a : b).http
        .post(`${ENDPOINTS}/${endpoint.id}/deliveries/${id}/redeliver`)
        .set(auth(s));

    // The endpoint now answers only when told, long after every redelivery was asked.
    for (let round = 1; round <= 3; round++) {
      let answer!: (status: number) => void;
      const held = new Promise<number>((resolve) => (answer = resolve));
      receiver.respond = (hook) => (hook.path === endpoint.path ? held : 200);
      const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => redeliver(i)));
      expect(burst.map((r) => r.status)).toEqual(Array(30).fill(202));
      for (const r of burst) expect(r.body).toMatchObject({ id, state: 'pending' });
      await within(5000, () => Promise.resolve(receiver.at(endpoint.path).length === round + 1));
      // In flight: more redeliveries change nothing and answer the current state.
      const during = await Promise.all(Array.from({ length: 30 }, (_, i) => redeliver(i)));
      for (const r of during) {
        expect(r.status).toBe(202);
        expect(r.body).toMatchObject({ id, state: 'pending', attempts: round + 1 });
      }
      expect(await queuedJobs(a, id)).toBe(0);
      answer(200);
      await within(5000, async () => (await delivery()).state === 'succeeded');
    }
    const hooks = receiver.at(endpoint.path);
    expect(await queuedJobs(a, id)).toBe(0); // nothing more can be sent: the count is final
    expect(hooks).toHaveLength(4);
    expect(peakInFlight(hooks)).toBe(1);
    expect(new Set(hooks.map((h) => h.headers['webhook-id'])).size).toBe(1);
    expect(await delivery()).toMatchObject({
      attempts: hooks.length,
      state: 'succeeded',
      last_status_code: 200,
    });
    await stop(b);
    await stop(a);
  });

  it('30 jobs for one due delivery, 16 pollers of two instances racing: one request, one attempt', async () => {
    const [a, b] = [await instance(), await instance()];
    const s = await newShop(a);
    const endpoint = await newEndpoint(s, a);
    await placeOrder(a, s);
    await within(5000, () => Promise.resolve(receiver.at(endpoint.path).length === 1));
    await within(5000, async () => (await onlyDelivery(a, s, endpoint.id)).state === 'succeeded');
    const { id } = await onlyDelivery(a, s, endpoint.id);
    let answer!: (status: number) => void;
    const held = new Promise<number>((resolve) => (answer = resolve));
    receiver.respond = (hook) => (hook.path === endpoint.path ? held : 200);
    // Due again with 30 jobs at once (as a recovery racing late jobs could leave it).
    await a.dataSource.transaction(async (m) => {
      await m.query(
        `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now() WHERE id = $1`,
        [id],
      );
      await a.app.get(JobQueue).insertInTransaction(
        new Db(m),
        Array.from({ length: 30 }, () => deliveryJob({ tenantId: s.tenantId, deliveryId: id })),
      );
    });
    for (const t of [a, b]) t.app.get(WebhookDeliveryWorker).wake();
    await within(5000, () => Promise.resolve(receiver.at(endpoint.path).length === 2));
    // Every other job has run and found the attempt in flight.
    await within(5000, async () => (await queuedJobs(a, id, true)) === 1);
    expect(await onlyDelivery(b, s, endpoint.id)).toMatchObject({ state: 'pending', attempts: 2 });
    answer(200);
    await within(5000, async () => (await onlyDelivery(a, s, endpoint.id)).state === 'succeeded');
    await within(5000, async () => (await queuedJobs(a, id, true)) === 0);
    expect(receiver.at(endpoint.path)).toHaveLength(2);
    expect(await onlyDelivery(a, s, endpoint.id)).toMatchObject({ attempts: 2 });
    await stop(b);
    await stop(a);
  });

  it('a woken delivery whose poller died before claiming it is woken again', async () => {
    const t = await instance();
    const s = await newShop(t);
    const endpoint = await newEndpoint(s, t);
    await placeOrder(t, s);
    await within(5000, () => Promise.resolve(receiver.at(endpoint.path).length === 1));
    await within(5000, async () => (await onlyDelivery(t, s, endpoint.id)).state === 'succeeded');
    const { id } = await onlyDelivery(t, s, endpoint.id);
    // In line with its slot held for a handed-off claim that never came (the hold lapsed).
    await t.dataSource.query(
      `UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = now(),
         waiting_since = now(), woken_until = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    expect(await queuedJobs(t, id)).toBe(0);
    expect(await t.app.get(WebhookRecovery).requeueOverdue()).toBe(0); // woken, not lost
    await within(5000, () => Promise.resolve(receiver.at(endpoint.path).length === 2));
    await within(5000, async () => (await onlyDelivery(t, s, endpoint.id)).state === 'succeeded');
    expect(await onlyDelivery(t, s, endpoint.id)).toMatchObject({ attempts: 2 });
    await stop(t);
  });

  it('a worker killed mid-send leaves a claim that is made again once its lease has run out', async () => {
    // This instance serves the API only: the delivery is sent by the worker process below.
    const api = await instance({ WORKER: 'off' });
    const s = await newShop(api);
    const endpoint = await newEndpoint(s, api);
    const delivery = async () => onlyDelivery(api, s, endpoint.id);
    let arrived!: () => void;
    const first = new Promise<void>((resolve) => (arrived = resolve));
    receiver.respond = (hook) => {
      if (hook.path !== endpoint.path) return 200;
      arrived();
      return new Promise<number>(() => undefined); // never answers: the sender dies first
    };
    const worker = await startWorker({ ...env, NODE_ENV: 'production' });
    children.push(worker);
    await placeOrder(api, s);
    await first;
    worker.child.kill('SIGKILL');
    await worker.exited;

    const lost = await delivery();
    expect(lost).toMatchObject({ state: 'pending', attempts: 1, last_status_code: null });
    // The claim outlives its process until its lease ends: nothing sends the delivery.
    const again = await api.http
      .post(`${ENDPOINTS}/${endpoint.id}/deliveries/${lost.id}/redeliver`)
      .set(auth(s));
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ state: 'pending', attempts: 1 });
    expect(await queuedJobs(api, lost.id)).toBe(0);
    const survivor = await instance();
    const recovery = survivor.app.get(WebhookRecovery);
    expect(await recovery.requeueOverdue()).toBe(0);

    // As if the lease (WEBHOOK_TIMEOUT_SECONDS + 15 s) had run out.
    await survivor.dataSource.query(
      `UPDATE webhook_deliveries SET claimed_until = now() - interval '1 second' WHERE id = $1`,
      [lost.id],
    );
    receiver.respond = () => 200;
    expect(await recovery.requeueOverdue()).toBe(1);
    await within(5000, () => Promise.resolve(receiver.at(endpoint.path).length === 2));
    await within(5000, async () => (await delivery()).state === 'succeeded');
    const hooks = receiver.at(endpoint.path);
    expect(hooks[1].headers['webhook-id']).toBe(hooks[0].headers['webhook-id']);
    expect(await delivery()).toMatchObject({ attempts: 2, last_status_code: 200 });
    await stop(survivor);
  }, 30_000);
});
