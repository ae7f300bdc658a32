import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('WorkQueue', () => {
  it('runs at most `concurrency` at once, queues up to `maxWaiting`, refuses the rest', async () => {
    const queue = new WorkQueue(2, 1, () => new Error('full'));
    const gates = [deferred(), deferred(), deferred()];
    let running = 0;
    let peak = 0;
    const task = (gate: { promise: Promise<void> }) => async () => {
      running++;
      peak = Math.max(peak, running);
      await gate.promise;
      running--;
    };
    const done = gates.map((g) => queue.run(task(g)));
    expect(queue.size).toEqual({ active: 2, waiting: 1 });
    await expect(queue.run(async () => 1)).rejects.toThrow('full');
    gates.forEach((g) => g.resolve());
    await Promise.all(done);
    expect(peak).toBe(2);
    expect(queue.size).toEqual({ active: 0, waiting: 0 });
  });

  it('frees the slot when a task throws', async () => {
    const queue = new WorkQueue(1, 0, () => new Error('full'));
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(queue.run(async () => 'ok')).resolves.toBe('ok');
  });
});
