/**
 * A set that holds at most `limit` values: adding one past the limit drops the value added (or
 * added again) longest ago. For what a process remembers of late, such as ids it erased.
 *
 * @example
 * ```ts
 * const erased = new RecentSet<string>(2);
 * erased.add("a").add("b").add("c"); // "a" goes
 * erased.has("a"); // false
 * ```
 */
export class RecentSet<T> {
  /** The most values the set holds. */
  readonly limit: number;
  #values = new Set<T>();

  /** An empty set that holds at most `limit` values. */
  constructor(limit: number) {
    this.limit = limit;
  }

  /** How many values the set holds. */
  get size(): number {
    return this.#values.size;
  }

  /** Whether the set holds `value`. */
  has(value: T): boolean {
    return this.#values.has(value);
  }

  /** Adds `value` as the latest, dropping the oldest past the limit. */
  add(value: T): this {
    this.#values.delete(value);
    this.#values.add(value);
    if (this.#values.size > this.limit) this.#values.delete(this.#values.values().next().value!);
    return this;
  }

  /** Forgets `value`. */
  delete(value: T): void {
    this.#values.delete(value);
  }
}
