import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository.js';
import {
  WebhookDeliverySlotsRepository,
  type SlotLimits,
} from '../../src/webhooks/webhook-delivery-slots.repository.js';
import { WebhookEndpointsRepository } from '../../src/webhooks/webhook-endpoints.repository.js';
import { within } from '../support/eventually.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import {
  insertApp,
  insertDelivery,
  insertEndpoint,
  insertEvent,
  rowOf,
} from '../support/tenant-rows.js';

const CLAIMED = "attempts = 1, claimed_until = now() + interval '1 hour'";

/** A promise and the function that settles it: a point one side of a race waits at. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/**
 * Two units of work on one tenant's endpoint or slots, one waiting for a lock the other
 * holds, sequenced by what pg_stat_activity says is waiting (no sleeps): an endpoint delete
 * against an attempt's outcome (the endpoint's row before its deliveries', in both), and a
 * wake that waited for the tenant's slot lock (it counts slots on the clock after the wait).
 */
describe('webhook outcomes, endpoint deletes and wakes under contention', () => {
  const deliveries = new WebhookDeliveriesRepository();
  const slots = new WebhookDeliverySlotsRepository();
  const endpoints = new WebhookEndpointsRepository();
  const limits: SlotLimits = { perEndpoint: 1, perTenant: 1, leaseSeconds: 60, wakeSeconds: 60 };
  const failed = { state: 'pending', statusCode: 500, error: 'boom', retryIn: 60 } as const;
  let r: RepositoryDatabase;
  let app: number;
  let endpoint: number;

  beforeAll(async () => {
    r = await repositoryDatabase();
    app = await insertApp(r.inspect, r.tenantA);
  });
  beforeEach(async () => {
    endpoint = await insertEndpoint(r.inspect, r.tenantA, app);
  });
  afterAll(() => r.close());

  const newDelivery = async (set: string) =>
    insertDelivery(r.inspect, r.tenantA, endpoint, await insertEvent(r.inspect, r.tenantA), set);

  /** Resolves once a statement of this database matching `pattern` waits for a lock. */
  const untilWaiting = (pattern: string) =>
    within(5_000, async () => {
      const rows: unknown[] = await r.inspect.query(
        `SELECT 1 FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1`,
        [pattern],
      );
      return rows.length > 0;
    });

  it("an endpoint delete waits for a failure's outcome, which records it: no deadlock", async () => {
    const id = await newDelivery(CLAIMED);
    const recorded = gate();
    const resume = gate();
    // The failure path's unit: the outcome, then (the retry's job), then the failure streak.
    const outcome = r.inA(async (db) => {
      const release = await deliveries.record(db, id, 1, failed);
      recorded.open();
      await resume.opened;
      await deliveries.endpointFailed(db, endpoint);
      return release;
    });
    await recorded.opened;
    const removal = endpoints.remove(r.a(), app, endpoint);
    await untilWaiting('%DELETE FROM webhook_endpoints%');
    resume.open();

    expect(await Promise.all([outcome, removal])).toEqual([{ live: true }, true]);
    expect(await rowOf(r.inspect, 'webhook_deliveries', id)).toBeUndefined();
  });

  it('a success waiting for its delivery holds the endpoint: the delete waits for it, no deadlock', async () => {
    const id = await newDelivery(CLAIMED);
    await r.inspect.query('UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1', [
      endpoint,
    ]);
    // Another unit holds the delivery's row a moment (a redelivery's check, a wake).
    const holder = r.inspect.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      await holder.query('SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR NO KEY UPDATE', [id]);
      const success = slots.succeedAndTransfer(r.a(), id, 1, 200, endpoint, limits);
      await untilWaiting('%WITH recorded AS%');
      const removal = endpoints.remove(r.a(), app, endpoint);
      await untilWaiting('%DELETE FROM webhook_endpoints%');
      await holder.commitTransaction();

      expect(await Promise.all([success, removal])).toEqual([{ recorded: true }, true]);
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
  });

  it("an outcome for an endpoint deleted meanwhile records nothing, and doesn't fail", async () => {
    const id = await newDelivery(CLAIMED);
    await endpoints.remove(r.a(), app, endpoint);
    expect(await deliveries.record(r.a(), id, 1, failed)).toBeUndefined();
    expect(await slots.succeedAndTransfer(r.a(), id, 1, 200, endpoint, limits)).toEqual({
      recorded: false,
    });
  });

  it('a wake that waited for the lock counts a slot that lapsed meanwhile as free', async () => {
    const IN_LINE = "waiting_since = now() - interval '1 minute'";
    const woken = await newDelivery(`${IN_LINE}, woken_until = now() + interval '1 minute'`);
    const next = await newDelivery(IN_LINE);
    const locked = gate();
    const unlock = gate();
    const holder = r.inA(async (db) => {
      await slots.lockTenant(db);
      locked.open();
      await unlock.opened;
    });
    await locked.opened;
    const wake = r.inA(async (db) => {
      await slots.lockTenant(db);
      return slots.wake(db, limits);
    });
    await untilWaiting('%pg_advisory_xact_lock%');
    // The slot held for `woken` lapses while the wake waits (its job never came).
    await r.inspect.query(
      'UPDATE webhook_deliveries SET woken_until = clock_timestamp() WHERE id = $1',
      [woken],
    );
    unlock.open();
    await holder;

    // The tenant's one slot is free again: the first in line (`woken`) is woken again.
    expect(await wake).toEqual([{ tenantId: r.tenantA, deliveryId: woken }]);
    const [{ held }]: Array<{ held: boolean }> = await r.inspect.query(
      `SELECT woken_until > clock_timestamp() + interval '55 seconds' AS held
       FROM webhook_deliveries WHERE id = $1`,
      [woken],
    );
    expect(held).toBe(true);
    expect(
      (await rowOf<{ woken_until: Date | null }>(r.inspect, 'webhook_deliveries', next))!
        .woken_until,
    ).toBeNull();
  });
});
