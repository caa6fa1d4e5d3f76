/**
 * A map that holds at most `limit` entries: reading an entry makes it the most recently used,
 * and adding one past the limit drops the least recently used.
 *
 * @example
 * ```ts
 * const kept = new LruMap<string, number>(2);
 * kept.set("a", 1).set("b", 2);
 * kept.get("a"); // 1, now the most recently used
 * kept.set("c", 3); // "b" goes
 * ```
 */
export class LruMap<K, V> {
  /** The most entries the map holds. */
  readonly limit: number;
  #entries = new Map<K, V>();

  /** An empty map that holds at most `limit` entries. */
  constructor(limit: number) {
    this.limit = limit;
  }

  /** How many entries the map holds. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Whether the map holds `key`; unlike `get`, it leaves `key` where it is in the order. */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The value of `key`, made by `make` and set when the map does not hold it. */
  getOrSet(key: K, make: () => V): V {
    let value = this.get(key);
    if (value === undefined) this.set(key, value = make());
    return value;
  }

  /** The entries, least recently used first. */
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#entries.entries();
  }

  /** Forgets `key`. */
  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
  }

  /** Sets `key` as the most recently used, dropping the least recently used past the limit. */
  set(key: K, value: V): this {
    this.#entries.delete(key);
    if (this.#entries.size >= this.limit) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, value);
    return this;
  }
}
