import { afterEach, describe, expect, it, vi } from 'vitest';
import { PeriodicRun } from './periodic-run.js';

describe('PeriodicRun', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('skips turns while one runs, reports failures, and stop waits for the running turn', async () => {
    vi.useFakeTimers();
    let finish: () => void = () => {};
    let turns = 0;
    const errors: unknown[] = [];
    const run = new PeriodicRun(
      100,
      () => {
        turns++;
        if (turns === 2) return Promise.reject(new Error('boom'));
        return new Promise<void>((resolve) => (finish = resolve));
      },
      (error) => errors.push(error),
    );
    run.start();
    await vi.advanceTimersByTimeAsync(350); // three ticks; the first turn still runs
    expect(turns).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(100); // the next turn fails
    expect(turns).toBe(2);
    expect(errors).toEqual([new Error('boom')]);
    await vi.advanceTimersByTimeAsync(100); // and the one after runs again
    expect(turns).toBe(3);
    let stopped = false;
    const stopping = run.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(500);
    expect(stopped).toBe(false); // turn 3 has not finished
    expect(turns).toBe(3); // and no new turn started
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });
});
