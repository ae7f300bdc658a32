import { describe, expect, it } from 'vitest';
import { FairWorkQueue, type WorkOwner } from './work-queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const full = () => new Error('full');
const owner = (tenantId: number, appId: number): WorkOwner => ({ tenantId, appId });
const WIDE = { perTenant: 100, perApp: 100 };

describe('FairWorkQueue', () => {
  it('runs at most `concurrency` at once, queues up to `maxWaiting`, refuses the rest', async () => {
    const queue = new FairWorkQueue(2, 1, WIDE, full);
    const gates = [deferred(), deferred(), deferred()];
    let running = 0;
    let peak = 0;
    const task = (gate: { promise: Promise<void> }) => async () => {
      running++;
      peak = Math.max(peak, running);
      await gate.promise;
      running--;
    };
    const done = gates.map((g) => queue.run(owner(1, 1), task(g)));
    expect(queue.size).toEqual({ active: 2, waiting: 1 });
    await expect(queue.run(owner(2, 2), async () => 1)).rejects.toThrow('full');
    gates.forEach((g) => g.resolve());
    await Promise.all(done);
    expect(peak).toBe(2);
    expect(queue.size).toEqual({ active: 0, waiting: 0 });
  });

  it('frees the slot and the shares when a task throws', async () => {
    const queue = new FairWorkQueue(1, 0, { perTenant: 1, perApp: 1 }, full);
    await expect(queue.run(owner(1, 1), () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    await expect(queue.run(owner(1, 1), async () => 'ok')).resolves.toBe('ok');
  });

  it('a tenant holds at most its share, however many apps it uses; others keep room', async () => {
    const queue = new FairWorkQueue(1, 10, { perTenant: 4, perApp: 2 }, full);
    const gate = deferred();
    const held: Array<Promise<unknown>> = [];
    const outcomes: string[] = [];
    for (let app = 1; app <= 5; app++) {
      for (let i = 0; i < 3; i++) {
        const run = queue.run(owner(1, app), () => gate.promise);
        held.push(run.then(() => 'ran').catch((e: Error) => e.message));
      }
    }
    // Tenant 1: 2 places for each of its first two apps, then its share of 4 is used up.
    expect(queue.size).toEqual({ active: 1, waiting: 3 });
    const other = queue.run(owner(2, 9), async () => 'tenant 2 ran');
    expect(queue.size).toEqual({ active: 1, waiting: 4 });
    gate.resolve();
    outcomes.push(...((await Promise.all(held)) as string[]));
    expect(outcomes.filter((o) => o === 'ran')).toHaveLength(4);
    expect(outcomes.filter((o) => o === 'full')).toHaveLength(11);
    await expect(other).resolves.toBe('tenant 2 ran');
  });

  it('hands freed slots round-robin: by tenant, then by app, FIFO within an app', async () => {
    const queue = new FairWorkQueue(1, 20, WIDE, full);
    const first = deferred();
    const order: string[] = [];
    const runs = [queue.run(owner(0, 0), () => first.promise)];
    const submit = (tenant: number, app: number, label: string) =>
      runs.push(queue.run(owner(tenant, app), async () => void order.push(label)));
    // Tenant 1 queues a backlog over two apps before tenant 2 and 3 arrive.
    for (const label of ['1a1', '1a2', '1a3']) submit(1, 1, label);
    for (const label of ['1b1', '1b2']) submit(1, 2, label);
    submit(2, 1, '2a1');
    submit(3, 1, '3a1');
    submit(2, 1, '2a2');
    first.resolve();
    await Promise.all(runs);
    expect(order).toEqual(['1a1', '2a1', '3a1', '1b1', '2a2', '1a2', '1b2', '1a3']);
    expect(queue.size).toEqual({ active: 0, waiting: 0 });
  });
});
