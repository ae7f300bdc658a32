import { describe, expect, it } from 'vitest';
import { connectionCap, openFileLimit } from './connection-cap.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63459                63459                processes
Max open files            20000                1048576              files
Max locked memory         8388608              8388608              bytes
`;

describe('connectionCap', () => {
  it('is the configured number, at most 80% of the open-file limit', () => {
    expect(connectionCap(10_000, 20_000)).toBe(10_000);
    expect(connectionCap(10_000, 1024)).toBe(819);
    expect(connectionCap(50, 1024)).toBe(50);
    expect(connectionCap(10_000, 1)).toBe(1);
    expect(connectionCap(10_000, undefined)).toBe(10_000);
  });

  it('reads the soft open-file limit where the system tells it', () => {
    expect(openFileLimit(() => LIMITS)).toBe(20_000);
    expect(openFileLimit(() => LIMITS.replace('20000   ', 'unlimited'))).toBeUndefined();
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
  });
});
