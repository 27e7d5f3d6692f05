/** Default capacity of a {@link BoundedCountCache}. @default 65536 */
export const DEFAULT_COUNT_CACHE_ENTRIES = 65_536;

/**
 * A least-recently-used map from a content digest to a token count. Bounded by entries; keys are
 * digests (short strings), never the content itself.
 */
export class BoundedCountCache {
  private readonly entries = new Map<string, number>();

  constructor(readonly capacity: number = DEFAULT_COUNT_CACHE_ENTRIES) {
    if (!(capacity >= 1)) throw new RangeError(`BoundedCountCache: capacity must be at least 1 (got ${capacity})`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): number | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Refresh recency: Map keeps insertion order, so the first key is the least recent.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: number): void {
    if (this.entries.has(key)) this.entries.delete(key);
    else if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
  }
}
