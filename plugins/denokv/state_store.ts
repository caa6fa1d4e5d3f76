/**
 * The relayer's `StateStore` in Deno KV (the data directory's `jobs.kv`): each call is Deno KV's
 * own, keys and values as they are.
 *
 * @example
 * ```ts
 * const state = new KvStateStore(await Deno.openKv(`${dataDir}/jobs.kv`));
 * await state.set(["erased", owner, memoryId], Date.now());
 * ```
 * @module
 */
import type {
  StateBatch,
  StateEntry,
  StateKey,
  StateListOptions,
  StateSelector,
  StateSetOptions,
  StateStore,
} from "@svc/relayer/kit";

/** Keys Deno KV reads in one `getMany`. */
const GET_MANY = 10;

function entry<T>(found: Deno.KvEntryMaybe<T>): StateEntry<T> | null {
  return found.versionstamp === null
    ? null
    : { key: found.key as StateKey, value: found.value, version: found.versionstamp };
}

/** A `StateStore` over one Deno KV; the caller closes the KV. */
export class KvStateStore implements StateStore {
  readonly #kv: Deno.Kv;

  /** The state in `kv`. */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async get<T>(key: StateKey): Promise<StateEntry<T> | null> {
    return entry(await this.#kv.get<T>(key as Deno.KvKey));
  }

  async getMany<T>(keys: readonly StateKey[]): Promise<(StateEntry<T> | null)[]> {
    const found: (StateEntry<T> | null)[] = [];
    for (let i = 0; i < keys.length; i += GET_MANY) {
      const slice = keys.slice(i, i + GET_MANY) as Deno.KvKey[];
      found.push(...(await this.#kv.getMany<T[]>(slice)).map(entry<T>));
    }
    return found;
  }

  async set(key: StateKey, value: unknown, options?: StateSetOptions): Promise<void> {
    await this.#kv.set(key as Deno.KvKey, value, options);
  }

  async delete(key: StateKey): Promise<void> {
    await this.#kv.delete(key as Deno.KvKey);
  }

  async *list<T>(
    selector: StateSelector,
    options: StateListOptions = {},
  ): AsyncIterable<StateEntry<T>> {
    const batchSize = Math.min(options.limit ?? 500, 500);
    const entries = this.#kv.list<T>(selector as Deno.KvListSelector, { ...options, batchSize });
    for await (const found of entries) yield entry(found)!;
  }

  batch(): StateBatch {
    const op = this.#kv.atomic();
    const batch: StateBatch = {
      check: (key, versionstamp) => (op.check({ key: key as Deno.KvKey, versionstamp }), batch),
      set: (key, value, options) => (op.set(key as Deno.KvKey, value, options), batch),
      delete: (key) => (op.delete(key as Deno.KvKey), batch),
      commit: async () => (await op.commit()).ok,
    };
    return batch;
  }
}
