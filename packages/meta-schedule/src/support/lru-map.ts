/**
 * A map of at most `capacity` entries that forgets the least recently used one when full: the
 * bounded memo behind the replay cache, the prefix states, VerifyGPUCode's verdicts and the
 * runner's random arguments. `get` counts as a use; capacity 0 keeps nothing.
 */
export class LruMap<K, V> {
  /** Insertion order is recency: a use moves its entry to the end, the first entry is evicted. */
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`LruMap: capacity must be a non-negative integer, got ${capacity}`);
  }

  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.capacity) this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, value);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
