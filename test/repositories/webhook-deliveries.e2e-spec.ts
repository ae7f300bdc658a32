import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository.js';
import {
  WebhookDeliverySlotsRepository,
  type SlotLimits,
} from '../../src/webhooks/webhook-delivery-slots.repository.js';
import { repositoryDatabase, type RepositoryDatabase } from '../support/repository-database.js';
import {
  insertApp,
  insertDelivery,
  insertEndpoint,
  insertEvent,
  rowOf,
} from '../support/tenant-rows.js';

interface Delivery {
  state: string;
  attempts: number;
  claimed_until: Date | null;
  waiting_since: Date | null;
  woken_until: Date | null;
}
interface Endpoint {
  active: boolean;
  failing_since: Date | null;
}

const SLOTS_LOCK = 7_240_104;
/** pg_locks spans the cluster: the specs running beside this one take the same keys. */
const THIS_DATABASE = 'database = (SELECT oid FROM pg_database WHERE datname = current_database())';
const CLAIMED = "attempts = 1, claimed_until = now() + interval '1 hour'";
const IN_LINE = "waiting_since = now() - interval '1 minute'";
const WOKEN = "woken_until = now() + interval '1 minute'";

/**
 * Attempts and slots: every tenant-path method through tenant A's path beside tenant B's
 * deliveries; the dispatcher's and the recovery's cross-tenant methods across both.
 */
describe('webhook deliveries and delivery slots repositories, two tenants', () => {
  const deliveries = new WebhookDeliveriesRepository();
  const slots = new WebhookDeliverySlotsRepository();
  const limits: SlotLimits = { perEndpoint: 1, perTenant: 1, leaseSeconds: 60, wakeSeconds: 60 };
  let r: RepositoryDatabase;
  let endpointA: number;
  let endpointB: number;

  beforeAll(async () => {
    r = await repositoryDatabase();
    endpointA = await insertEndpoint(r.inspect, r.tenantA, await insertApp(r.inspect, r.tenantA));
    endpointB = await insertEndpoint(r.inspect, r.tenantB, await insertApp(r.inspect, r.tenantB));
  });
  beforeEach(async () => {
    await r.inspect.query('DELETE FROM webhook_deliveries');
    await r.inspect.query(
      'UPDATE webhook_endpoints SET active = true, failing_since = NULL, last_failure_at = NULL',
    );
  });
  afterAll(() => r.close());

  const delivery = (id: number) => rowOf<Delivery>(r.inspect, 'webhook_deliveries', id);
  const endpoint = (id: number) => rowOf<Endpoint>(r.inspect, 'webhook_endpoints', id);
  /** A delivery of a new event in each tenant. */
  const pair = async (set = '') => ({
    idA: await insertDelivery(
      r.inspect,
      r.tenantA,
      endpointA,
      await insertEvent(r.inspect, r.tenantA),
      set,
    ),
    idB: await insertDelivery(
      r.inspect,
      r.tenantB,
      endpointB,
      await insertEvent(r.inspect, r.tenantB),
      set,
    ),
  });
  const failed = { state: 'pending', statusCode: 500, error: 'boom', retryIn: 60 } as const;

  describe('attempts', () => {
    it("target reads tenant A's delivery only", async () => {
      const { idA, idB } = await pair();
      expect(await deliveries.target(r.a(), idB)).toBeUndefined();
      const target = await deliveries.target(r.a(), idA);
      expect(target).toMatchObject({ endpoint_id: endpointA, event: { type: 'order.created' } });
      expect(target!.event.created_at).toBeInstanceOf(Date);
    });

    it("record writes tenant A's outcome only, and a success ends A's streak only", async () => {
      const { idA, idB } = await pair(CLAIMED);
      await r.inspect.query('UPDATE webhook_endpoints SET failing_since = now()');
      const succeeded = {
        state: 'succeeded',
        statusCode: 200,
        error: null,
        retryIn: null,
      } as const;
      expect(await deliveries.record(r.a(), idB, 1, succeeded)).toBeUndefined();
      expect(await delivery(idB)).toMatchObject({
        state: 'pending',
        claimed_until: expect.any(Date),
      });

      // An hour of its lease left: live, its slot may be handed on.
      expect(await deliveries.record(r.a(), idA, 1, succeeded)).toEqual({ live: true });
      expect(await delivery(idA)).toMatchObject({ state: 'succeeded', claimed_until: null });
      expect((await endpoint(endpointA))!.failing_since).toBeNull();
      expect((await endpoint(endpointB))!.failing_since).toBeInstanceOf(Date);
      expect(await deliveries.record(r.a(), idA, 1, failed)).toBeUndefined(); // claim released
    });

    it("endpointFailed extends and disables tenant A's endpoint only", async () => {
      const streak = "failing_since = now() - interval '6 days', last_failure_at = now()";
      await r.inspect.query(`UPDATE webhook_endpoints SET ${streak}`);
      expect(await deliveries.endpointFailed(r.a(), endpointB)).toBeUndefined();
      expect(await endpoint(endpointB)).toMatchObject({ active: true });
      const [{ moved }]: Array<{ moved: boolean }> = await r.inspect.query(
        "SELECT last_failure_at < now() - interval '1 second' AS moved FROM webhook_endpoints WHERE id = $1",
        [endpointB],
      );
      expect(moved).toBe(false);

      expect((await deliveries.endpointFailed(r.a(), endpointA))?.id).toBe(endpointA);
      expect(await endpoint(endpointA)).toMatchObject({ active: false });
      expect(await endpoint(endpointB)).toMatchObject({ active: true });
    });
  });

  describe('slots', () => {
    /** The tenants whose slot lock `work`'s unit holds, seen from outside while it runs. */
    async function lockedTenants(work: Parameters<typeof r.transactions.run>[0]) {
      let held: number[] = [];
      await r.transactions.run(async (db) => {
        await work(db);
        const rows: Array<{ tenant: number }> = await r.inspect.query(
          `SELECT objid::int AS tenant FROM pg_locks
           WHERE locktype = 'advisory' AND classid = $1 AND ${THIS_DATABASE} ORDER BY 1`,
          [SLOTS_LOCK],
        );
        held = rows.map((row) => row.tenant);
      });
      return held;
    }

    it('lockTenant locks tenant A only; lockTenants (dispatch) locks every tenant given', async () => {
      expect(await lockedTenants((db) => slots.lockTenant(db.tenant(r.tenantA)))).toEqual([
        r.tenantA,
      ]);
      expect(
        await lockedTenants((db) =>
          slots.lockTenants(db.crossTenant('webhook-dispatch'), [r.tenantB, r.tenantA]),
        ),
      ).toEqual([r.tenantA, r.tenantB].sort((x, y) => x - y));
    });

    it("lockTenantShared holds tenant A's lock, shared", async () => {
      let modes: string[] = [];
      await r.transactions.run(async (db) => {
        await slots.lockTenantShared(db.tenant(r.tenantA));
        await slots.lockTenantShared(db.tenant(r.tenantA));
        const rows: Array<{ tenant: number; mode: string }> = await r.inspect.query(
          `SELECT objid::int AS tenant, mode FROM pg_locks
           WHERE locktype = 'advisory' AND classid = $1 AND ${THIS_DATABASE}`,
          [SLOTS_LOCK],
        );
        modes = rows.map((row) => `${row.tenant} ${row.mode}`);
      });
      expect(modes).toEqual([`${r.tenantA} ShareLock`]);
    });

    it("lineWaiting sees tenant A's line only, and only while a slot is free for it", async () => {
      await pair(IN_LINE);
      await r.inspect.query('DELETE FROM webhook_deliveries WHERE tenant_id = $1', [r.tenantA]);
      expect(await slots.lineWaiting(r.a(), limits)).toBe(false); // B's line only
      const { idA } = await pair(IN_LINE);
      expect(await slots.lineWaiting(r.a(), limits)).toBe(true);
      // A's one slot taken: a wake could give nobody anything.
      await insertDelivery(
        r.inspect,
        r.tenantA,
        endpointA,
        await insertEvent(r.inspect, r.tenantA),
        CLAIMED,
      );
      expect(await slots.lineWaiting(r.a(), limits)).toBe(false);
      expect((await delivery(idA))!.waiting_since).toBeInstanceOf(Date);
    });

    it("transfer and succeedAndTransfer hand tenant A's slot to A's line only", async () => {
      const released = await insertDelivery(
        r.inspect,
        r.tenantA,
        endpointA,
        await insertEvent(r.inspect, r.tenantA),
        CLAIMED,
      );
      const { idA, idB } = await pair(IN_LINE);
      // B's line is older than A's: still only A's can take A's slot.
      await r.inspect.query(
        "UPDATE webhook_deliveries SET next_attempt_at = now() - interval '1 hour' WHERE id = $1",
        [idB],
      );
      const next = await slots.transfer(r.a(), released, endpointA, limits);
      expect(next).toMatchObject({ deliveryId: idA, attempt: 1 });
      expect(next!.target.event.id).toMatch(/^evt_/);
      expect(await delivery(idB)).toMatchObject({ attempts: 0, claimed_until: null });

      const after = await insertDelivery(
        r.inspect,
        r.tenantA,
        endpointA,
        await insertEvent(r.inspect, r.tenantA),
        IN_LINE,
      );
      // The first claim's outcome was recorded meanwhile: idA holds A's one slot alone.
      await r.inspect.query(
        "UPDATE webhook_deliveries SET claimed_until = NULL, state = 'succeeded' WHERE id = $1",
        [released],
      );
      const result = await slots.succeedAndTransfer(r.a(), idA, 1, 204, endpointA, limits);
      expect(result).toMatchObject({ recorded: true, next: { deliveryId: after, attempt: 1 } });
      expect(await delivery(idA)).toMatchObject({ state: 'succeeded', claimed_until: null });
      expect(await delivery(idB)).toMatchObject({ attempts: 0, claimed_until: null });
      // Not A's delivery: nothing recorded, nothing handed on.
      expect(await slots.succeedAndTransfer(r.a(), idB, 1, 204, endpointB, limits)).toEqual({
        recorded: false,
      });
    });

    it("claimWoken claims tenant A's woken delivery only", async () => {
      const { idA, idB } = await pair(WOKEN);
      expect(await slots.claimWoken(r.a(), idB, 60)).toBeUndefined();
      expect(await delivery(idB)).toMatchObject({ attempts: 0, woken_until: expect.any(Date) });
      expect(await slots.claimWoken(r.a(), idA, 60)).toBe(1);
      expect(await delivery(idA)).toMatchObject({ attempts: 1, woken_until: null });
    });

    it("claim decides on tenant A's delivery; B's attempts in flight take none of A's slots", async () => {
      const { idA, idB } = await pair(); // due in both tenants
      await insertDelivery(
        r.inspect,
        r.tenantB,
        endpointB,
        await insertEvent(r.inspect, r.tenantB),
        CLAIMED,
      );
      const claimB = await r.inA(async (db) => {
        await slots.lockTenant(db);
        return slots.claim(db, idB, limits);
      });
      expect(claimB).toEqual({ kind: 'none' });
      expect(await delivery(idB)).toMatchObject({ attempts: 0, claimed_until: null });

      const claimA = await r.inA(async (db) => {
        await slots.lockTenant(db);
        return slots.claim(db, idA, limits);
      });
      expect(claimA).toEqual({ kind: 'claimed', attempt: 1 });
    });

    it("wake wakes tenant A's line only; wakeTenants (dispatch) every tenant given", async () => {
      const { idA, idB } = await pair(IN_LINE);
      expect(await r.inA((db) => slots.wake(db, limits))).toEqual([
        { tenantId: r.tenantA, deliveryId: idA },
      ]);
      expect((await delivery(idB))!.woken_until).toBeNull();

      await r.inspect.query('UPDATE webhook_deliveries SET woken_until = NULL');
      const woken = await r.transactions.run((db) =>
        slots.wakeTenants(db.crossTenant('webhook-dispatch'), [r.tenantA, r.tenantB], limits),
      );
      expect(woken).toEqual(
        expect.arrayContaining([
          { tenantId: r.tenantA, deliveryId: idA },
          { tenantId: r.tenantB, deliveryId: idB },
        ]),
      );
      expect(woken).toHaveLength(2);
    });

    it("lineUpForgotten and tenantsInLine (recovery) cover every tenant's deliveries", async () => {
      const lapsed = "attempts = 1, claimed_until = now() - interval '1 second'";
      const lost = "next_attempt_at = now() - interval '1 hour'";
      const expired = await pair(lapsed);
      const overdue = await pair(lost);
      const recent = await pair(); // due now: its job is not lost
      const recovery = r.transactions.db.crossTenant('webhook-recovery');
      expect(await slots.tenantsInLine(recovery)).toEqual([]);
      expect(await slots.lineUpForgotten(recovery, 15 * 60)).toBe(4);
      for (const id of [expired.idA, expired.idB, overdue.idA, overdue.idB]) {
        expect(await delivery(id)).toMatchObject({
          claimed_until: null,
          waiting_since: expect.any(Date),
        });
      }
      for (const id of [recent.idA, recent.idB]) {
        expect((await delivery(id))!.waiting_since).toBeNull();
      }
      expect((await slots.tenantsInLine(recovery)).sort((x, y) => x - y)).toEqual(
        [r.tenantA, r.tenantB].sort((x, y) => x - y),
      );
    });
  });
});
