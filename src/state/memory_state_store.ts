/**
 * A `StateStore` in memory: for tests and tools, and the reference of the seam's behaviour.
 * Values are copied in and out (structured clone), as a store that serialises them would.
 *
 * @example
 * ```ts
 * const state = new MemoryStateStore();
 * await state.set(["plan"], { from: "a", to: "b" }, { expireIn: 60_000 });
 * (await state.get(["plan"]))?.value; // { from: "a", to: "b" }
 * ```
 * @module
 */
import { compareBytes, encodeKey, selectorRange } from "./state_key.ts";
import {
  gatheredBatch,
  type StateBatch,
  type StateEntry,
  type StateKey,
  type StateListOptions,
  type StateSelector,
  type StateSetOptions,
  type StateStore,
  type StateWrite,
} from "./state_store.ts";

interface Stored {
  bytes: Uint8Array;
  key: StateKey;
  value: unknown;
  version: string;
  expiresAt?: number;
}

/** The state in a map, keyed by the hex of each key's encoding (whose order is the keys'). */
export class MemoryStateStore implements StateStore {
  readonly #entries = new Map<string, Stored>();
  readonly #now: () => number;
  #writes = 0;

  /** An empty store; `now` is its clock for expiry (default `Date.now`). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #live(id: string): Stored | undefined {
    const stored = this.#entries.get(id);
    if (stored?.expiresAt !== undefined && stored.expiresAt <= this.#now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return stored;
  }

  #entry<T>(stored: Stored): StateEntry<T> {
    return {
      key: [...stored.key],
      value: structuredClone(stored.value) as T,
      version: stored.version,
    };
  }

  #apply(writes: StateWrite[]): void {
    const version = String(++this.#writes).padStart(20, "0");
    for (const { key, set } of writes) {
      const bytes = encodeKey(key);
      const id = bytes.toHex();
      if (!set) {
        this.#entries.delete(id);
        continue;
      }
      const { value, options } = set;
      const expiresAt = options?.expireIn === undefined
        ? undefined
        : this.#now() + options.expireIn;
      this.#entries.set(id, {
        bytes,
        key: [...key],
        value: structuredClone(value),
        version,
        expiresAt,
      });
    }
  }

  get<T>(key: StateKey): Promise<StateEntry<T> | null> {
    const stored = this.#live(encodeKey(key).toHex());
    return Promise.resolve(stored ? this.#entry<T>(stored) : null);
  }

  async getMany<T>(keys: readonly StateKey[]): Promise<(StateEntry<T> | null)[]> {
    return await Promise.all(keys.map((key) => this.get<T>(key)));
  }

  set(key: StateKey, value: unknown, options?: StateSetOptions): Promise<void> {
    this.#apply([{ key, set: { value, options } }]);
    return Promise.resolve();
  }

  delete(key: StateKey): Promise<void> {
    this.#apply([{ key }]);
    return Promise.resolve();
  }

  async *list<T>(
    selector: StateSelector,
    options: StateListOptions = {},
  ): AsyncIterable<StateEntry<T>> {
    const [from, to] = selectorRange(selector);
    const selected = [...this.#entries.keys()]
      .map((id) => this.#live(id))
      .filter((stored): stored is Stored =>
        stored !== undefined && compareBytes(stored.bytes, from) >= 0 &&
        compareBytes(stored.bytes, to) < 0
      )
      .sort((a, b) => compareBytes(a.bytes, b.bytes));
    if (options.reverse) selected.reverse();
    for (const stored of selected.slice(0, options.limit)) yield this.#entry<T>(stored);
  }

  batch(): StateBatch {
    return gatheredBatch((checks, writes) => {
      const ok = checks.every(({ key, version }) =>
        (this.#live(encodeKey(key).toHex())?.version ?? null) === version
      );
      if (ok) this.#apply(writes);
      return Promise.resolve(ok);
    });
  }
}
