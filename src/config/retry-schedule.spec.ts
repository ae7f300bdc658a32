import { describe, expect, it } from 'vitest';
import { parseRetrySchedule } from './retry-schedule.js';

describe('parseRetrySchedule', () => {
  it('reads the documented default', () => {
    expect(parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h')).toEqual([
      5, 300, 1800, 7200, 18_000, 36_000, 36_000,
    ]);
    expect(parseRetrySchedule(' 1s , 2s ')).toEqual([1, 2]);
  });

  it.each(['', '5', '5x', '-1s', '0s', '1.5s', '8d', '5s,,5s', Array(21).fill('1s').join(',')])(
    'refuses %j',
    (text) => {
      expect(parseRetrySchedule(text)).toBeUndefined();
    },
  );
});
