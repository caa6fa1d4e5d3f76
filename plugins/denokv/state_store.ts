/**
 * The relayer's `StateStore` in Deno KV (the data directory's `jobs.kv`): keys and values as they
 * are; a write met by another handle's write lock on the file is tried again.
 *
 * @example
 * ```ts
 * const state = new KvStateStore(await Deno.openKv(`${dataDir}/jobs.kv`));
 * await state.set(["erased", owner, memoryId], Date.now());
 * ```
 * @module
 */
import { retryWhileLocked } from "@svc/util/kv_locked";
import {
  gatheredBatch,
  type StateBatch,
  type StateEntry,
  type StateKey,
  type StateListOptions,
  type StateSelector,
  type StateSetOptions,
  type StateStore,
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

  /** Ten keys a read (Deno KV's limit), the reads at once. */
  async getMany<T>(keys: readonly StateKey[]): Promise<(StateEntry<T> | null)[]> {
    const reads: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
    for (let i = 0; i < keys.length; i += GET_MANY) {
      reads.push(this.#kv.getMany<T[]>(keys.slice(i, i + GET_MANY) as Deno.KvKey[]));
    }
    return (await Promise.all(reads)).flat().map(entry<T>);
  }

  async set(key: StateKey, value: unknown, options?: StateSetOptions): Promise<void> {
    await this.batch().set(key, value, options).commit();
  }

  async delete(key: StateKey): Promise<void> {
    await this.batch().delete(key).commit();
  }

  async *list<T>(
    selector: StateSelector,
    options: StateListOptions = {},
  ): AsyncIterable<StateEntry<T>> {
    const batchSize = Math.min(options.limit ?? 500, 500);
    const entries = this.#kv.list<T>(selector as Deno.KvListSelector, { ...options, batchSize });
    for await (const found of entries) yield entry(found)!;
  }

  /** A commit met by another handle's write lock on the file is tried again (see kv_locked). */
  batch(): StateBatch {
    return gatheredBatch((checks, writes) =>
      retryWhileLocked(async () => {
        const op = this.#kv.atomic();
        for (const { key, version } of checks) {
          op.check({ key: key as Deno.KvKey, versionstamp: version });
        }
        for (const { key, set } of writes) {
          if (set) op.set(key as Deno.KvKey, set.value, set.options);
          else op.delete(key as Deno.KvKey);
        }
        return (await op.commit()).ok;
      })
    );
  }
}
