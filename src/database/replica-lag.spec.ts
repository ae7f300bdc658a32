import { describe, expect, it } from 'vitest';
import { parseLsn, ReplicaLag } from './replica-lag.js';

describe('ReplicaLag', () => {
  it('zero once the replica replayed the latest sample, even long after it', () => {
    const lag = new ReplicaLag(5_000);
    lag.sample('0/100', 0);
    lag.sample('0/200', 1_000);
    expect(lag.lagMs('0/200', 60_000)).toBe(0);
    expect(lag.lagMs('0/300', 60_000)).toBe(0);
  });

  it('an upper bound: the time since the last sample the replica has reached', () => {
    const lag = new ReplicaLag(5_000);
    lag.sample('0/100', 0);
    lag.sample('0/200', 250);
    lag.sample('0/300', 500);
    // Between the samples of 250 and 500 ms: at most 750 - 250 behind at 750 ms.
    expect(lag.lagMs('0/250', 750)).toBe(500);
    expect(lag.lagMs('0/100', 750)).toBe(750);
  });

  it('behind every sample kept: as old as the oldest, so it only grows', () => {
    const lag = new ReplicaLag(1_000);
    for (let t = 0; t <= 10_000; t += 250) lag.sample(`0/${(1_000 + t).toString(16)}`, t);
    expect(lag.lagMs('0/1', 10_000)).toBeGreaterThanOrEqual(1_000);
  });

  it('parses WAL positions as PostgreSQL prints them, and refuses anything else', () => {
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(() => parseLsn('16-B374D848')).toThrow(/not a WAL position/);
  });
});
