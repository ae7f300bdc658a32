/**
 * A Map holding at most `capacity` entries; past it, the least recently used goes first.
 * A Map iterates in insertion order, so re-inserting on use keeps the oldest in front.
 * The newest entry is not re-inserted on use (it is already last): a hot key read over and
 * over, as one client's token is, costs a lookup instead of a delete and an insert, whose
 * holes make the Map rebuild its table every few reads.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  /** The last key inserted, if it is still there: the most recently used. */
  private newest?: K;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError('capacity must be a positive integer');
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined && key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, value);
      this.newest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    this.newest = key;
    if (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as K);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
    if (key === this.newest) this.newest = undefined;
  }
}
