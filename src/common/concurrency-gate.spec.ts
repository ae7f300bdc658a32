import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from './concurrency-gate.js';

const full = () => new Error('full');
const A1 = { tenantId: 1, appId: 11 };
const A2 = { tenantId: 1, appId: 12 };
const B1 = { tenantId: 2, appId: 21 };

describe('ConcurrencyGate', () => {
  it('runs up to the app cap, queues up to its waiting bound, then refuses at once', async () => {
    const gate = new ConcurrencyGate(
      { total: 100, perTenant: 5, perApp: 2, waitingPerApp: 1 },
      full,
    );
    const first = await gate.enter(A1);
    await gate.enter(A1);
    let thirdRan = false;
    const third = gate.enter(A1).then((leave) => ((thirdRan = true), leave));
    await expect(gate.enter(A1)).rejects.toThrow('full');
    expect(gate.running(1)).toBe(2);
    first();
    first(); // giving back twice gives back once
    await third;
    expect(thirdRan).toBe(true);
    expect(gate.running(1)).toBe(2);
  });

  it('a tenant at its cap, through any number of apps, leaves another tenant untouched', async () => {
    const gate = new ConcurrencyGate(
      { total: 100, perTenant: 2, perApp: 2, waitingPerApp: 4 },
      full,
    );
    await gate.enter(A1);
    await gate.enter(A2);
    const waiting = gate.enter(A2);
    // Tenant B runs at once.
    const b = await gate.enter(B1);
    expect(gate.running(2)).toBe(1);
    b();
    expect(gate.running(1)).toBe(2);
    void waiting;
  });

  it('a place freed in a tenant goes to its apps in turn, not to one app backlog', async () => {
    const gate = new ConcurrencyGate(
      { total: 100, perTenant: 1, perApp: 1, waitingPerApp: 4 },
      full,
    );
    const served: string[] = [];
    const leaves: Array<() => void> = [];
    const enter = (owner: typeof A1, name: string) =>
      gate.enter(owner).then((leave) => {
        served.push(name);
        leaves.push(leave);
      });
    const leave = await gate.enter(A1);
    const queued = [enter(A1, 'A1 second'), enter(A1, 'A1 third'), enter(A2, 'A2 first')];
    leave();
    await Promise.resolve();
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      leaves.shift()?.();
    }
    await Promise.all(queued);
    expect(served).toEqual(['A2 first', 'A1 second', 'A1 third']);
    expect(gate.running(1)).toBe(0);
  });

  it('all tenants together stay within the total; a freed place goes to the next tenant in turn', async () => {
    const gate = new ConcurrencyGate({ total: 2, perTenant: 2, perApp: 2, waitingPerApp: 4 }, full);
    const first = await gate.enter(A1);
    await gate.enter(A1);
    const served: string[] = [];
    const waitingA = gate.enter(A1).then((leave) => (served.push('A'), leave));
    const waitingB = gate.enter(B1).then((leave) => (served.push('B'), leave));
    await Promise.resolve();
    expect(gate.running(1) + gate.running(2)).toBe(2);
    first();
    await waitingB;
    // Tenant B waited behind A's place, not behind A's backlog.
    expect(served).toEqual(['B']);
    expect(gate.running(2)).toBe(1);
    void waitingA;
  });
});

describe('ConcurrencyGate with memory', () => {
  const limits = { total: 10, perTenant: 10, perApp: 10, waitingPerApp: 10, memory: 100 };

  it('keeps the running requests within the memory, and a large one waits for room', async () => {
    const gate = new ConcurrencyGate(limits, full);
    const first = await gate.enter(A1, 60);
    let large = false;
    const waiting = gate.enter(B1, 60).then((leave) => ((large = true), leave));
    await Promise.resolve();
    expect(large).toBe(false);
    // Requests that take no memory still run.
    (await gate.enter(A2))();
    first();
    (await waiting)();
    expect(large).toBe(true);
    expect(gate.running(1) + gate.running(2)).toBe(0);
  });

  it('a large request next in turn is not passed by smaller ones that would fit', async () => {
    const gate = new ConcurrencyGate(limits, full);
    const first = await gate.enter(A1, 50);
    const order: string[] = [];
    const large = gate.enter(B1, 80).then((leave) => (order.push('large'), leave));
    const small = gate.enter(A2, 10).then((leave) => (order.push('small'), leave));
    await Promise.resolve();
    expect(order).toEqual([]);
    // Freed: the large one goes first, and the small one fits beside it.
    first();
    await Promise.all([large, small]);
    expect(order).toEqual(['large', 'small']);
  });

  it('a weight beyond the memory is held as the whole of it', async () => {
    const gate = new ConcurrencyGate(limits, full);
    const leave = await gate.enter(A1, 1_000);
    let second = false;
    const waiting = gate.enter(B1, 1).then((l) => ((second = true), l));
    await Promise.resolve();
    expect(second).toBe(false);
    leave();
    (await waiting)();
    expect(second).toBe(true);
  });
});
