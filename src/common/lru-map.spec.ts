import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.js';

describe('LruMap', () => {
  it('holds at most `capacity` entries, forgetting the least recently used first', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1); // a is now the most recent
    map.set('c', 3);
    expect(map.size).toBe(2);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
  });

  it('replacing a value counts as a use and does not grow the map', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10);
    map.set('c', 3);
    expect(map.size).toBe(2);
    expect(map.get('a')).toBe(10);
    expect(map.get('b')).toBeUndefined();
  });

  it('stays bounded under many distinct keys', () => {
    const map = new LruMap<number, number>(100);
    for (let i = 0; i < 10_000; i++) map.set(i, i);
    expect(map.size).toBe(100);
    expect(map.get(9_899)).toBeUndefined();
    expect(map.get(9_900)).toBe(9_900);
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) {
      expect(() => new LruMap(capacity)).toThrow(RangeError);
    }
  });
});
