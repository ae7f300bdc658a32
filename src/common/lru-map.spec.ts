import fc from 'fast-check';
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

  it('behaves as a plain least-recently-used list under any sequence of operations', () => {
    const operation = fc.oneof(
      fc.record({ op: fc.constant('get' as const), key: fc.integer({ min: 0, max: 5 }) }),
      fc.record({
        op: fc.constant('set' as const),
        key: fc.integer({ min: 0, max: 5 }),
        value: fc.integer(),
      }),
      fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(operation, { maxLength: 60 }),
        (capacity, ops) => {
          const map = new LruMap<number, number>(capacity);
          // The model: most recently used last.
          let model: Array<[number, number]> = [];
          for (const step of ops) {
            const at = model.findIndex(([k]) => k === step.key);
            if (step.op === 'get') {
              expect(map.get(step.key)).toBe(at === -1 ? undefined : model[at][1]);
              if (at !== -1) model.push(...model.splice(at, 1));
            } else if (step.op === 'set') {
              map.set(step.key, step.value);
              if (at !== -1) model.splice(at, 1);
              model.push([step.key, step.value]);
              if (model.length > capacity) model = model.slice(1);
            } else {
              map.delete(step.key);
              if (at !== -1) model.splice(at, 1);
            }
            expect(map.size).toBe(model.length);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) {
      expect(() => new LruMap(capacity)).toThrow(RangeError);
    }
  });
});
