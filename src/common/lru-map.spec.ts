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
    type Step =
      | { op: 'get'; key: number }
      | { op: 'set'; key: number; value: number }
      | { op: 'delete'; key: number };
    const key = fc.integer({ min: 0, max: 5 });
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ op: fc.constant('get' as const), key }),
      fc.record({ op: fc.constant('set' as const), key, value: fc.integer() }),
      fc.record({ op: fc.constant('delete' as const), key }),
    );
    /** The model: entries most recently used last; answers what `get` returns. */
    const modelStep = (model: Array<[number, number]>, capacity: number, s: Step) => {
      const at = model.findIndex(([k]) => k === s.key);
      const found = at === -1 ? undefined : model.splice(at, 1)[0];
      if (s.op === 'get' && found) model.push(found);
      if (s.op === 'set') model.push([s.key, s.value]);
      if (model.length > capacity) model.shift();
      return s.op === 'get' ? found?.[1] : undefined;
    };
    const mapStep = (map: LruMap<number, number>, s: Step) => {
      if (s.op === 'get') return map.get(s.key);
      if (s.op === 'set') map.set(s.key, s.value);
      else map.delete(s.key);
      return undefined;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(step, { maxLength: 60 }),
        (capacity, steps) => {
          const map = new LruMap<number, number>(capacity);
          const model: Array<[number, number]> = [];
          for (const s of steps) {
            const answered = mapStep(map, s);
            const expected = modelStep(model, capacity, s);
            expect([answered, map.size]).toEqual([expected, model.length]);
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
