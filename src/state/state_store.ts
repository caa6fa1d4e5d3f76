/**
 * The relayer's state seam: a key-value store with ordered keys, expiry and atomic batches. The
 * core writes its small stores once over it (the reindex's progress, the access log, the
 * memories' lifecycle); a backend implements it and nothing of theirs. `@svc/denokv` keeps it in
 * Deno KV, `@svc/postgres` in one table; `MemoryStateStore` keeps it in memory, and
 * `stateStoreSuite` (in the testing module) checks any store.
 *
 * Keys are lists of strings and numbers, ordered part by part as Deno KV orders them: strings by
 * their UTF-8 bytes, every string before every number, numbers by value (`state_key.ts`). Values
 * are what structured clone copies (objects, arrays, strings, numbers, booleans, `null`,
 * `Uint8Array`s).
 *
 * @example
 * ```ts
 * const state: StateStore = new MemoryStateStore();
 * await state.set(["erased", owner, memoryId], Date.now());
 * for await (const { key } of state.list({ prefix: ["erased", owner] })) console.log(key[2]);
 * const ok = await state.batch().check(["plan"], null).set(["plan"], plan).commit();
 * ```
 * @module
 */

/** One part of a key. */
export type StateKeyPart = string | number;

/** A key: its parts, most significant first. */
export type StateKey = readonly StateKeyPart[];

/** A stored entry. */
export interface StateEntry<T = unknown> {
  /** Its key. */
  key: StateKey;
  /** Its value. */
  value: T;
  /** Changes each time the entry is written; what `StateBatch.check` compares. */
  version: string;
}

/** How an entry is written. */
export interface StateSetOptions {
  /**
   * Milliseconds after which the store may delete the entry. Reads may see it for a while after
   * (Deno KV's sweep), so nothing may rely on it being gone.
   */
  expireIn?: number;
}

/**
 * Which entries a list returns, in key order: those under `prefix` (not the prefix itself), from
 * `start` (inclusive) and before `end` (exclusive). A prefix may come with a start or an end;
 * without a prefix, both are given.
 */
export type StateSelector =
  | { prefix: StateKey; start?: StateKey; end?: undefined }
  | { prefix: StateKey; start?: undefined; end?: StateKey }
  | { prefix?: undefined; start: StateKey; end: StateKey };

/** How a list returns its entries. */
export interface StateListOptions {
  /** At most this many. */
  limit?: number;
  /** Greatest key first. */
  reverse?: boolean;
}

/**
 * Checks and writes committed together: all of them, or none when a check fails. A batch holds
 * at most `STATE_LIMITS.batchChecks` checks and `STATE_LIMITS.batchWrites` writes of
 * `STATE_LIMITS.batchBytes` together.
 */
export interface StateBatch {
  /** Fails the batch unless the entry at `key` has `version` (`null`: there is none). */
  check(key: StateKey, version: string | null): StateBatch;
  /** Writes `value` at `key`. */
  set(key: StateKey, value: unknown, options?: StateSetOptions): StateBatch;
  /** Deletes the entry at `key`, if any. */
  delete(key: StateKey): StateBatch;
  /** Resolves to `false`, having written nothing, when a check failed. */
  commit(): Promise<boolean>;
}

/** Keeps the relayer's state; see the module documentation. */
export interface StateStore {
  /** The entry at `key`, or `null`. */
  get<T>(key: StateKey): Promise<StateEntry<T> | null>;
  /** The entries at `keys`, in their order (`null` where there is none). */
  getMany<T>(keys: readonly StateKey[]): Promise<(StateEntry<T> | null)[]>;
  /** Writes `value` at `key`. */
  set(key: StateKey, value: unknown, options?: StateSetOptions): Promise<void>;
  /** Deletes the entry at `key`, if any. */
  delete(key: StateKey): Promise<void>;
  /** The entries `selector` selects, in key order. */
  list<T>(selector: StateSelector, options?: StateListOptions): AsyncIterable<StateEntry<T>>;
  /** A new batch of checks and writes. */
  batch(): StateBatch;
}

/** A check of a batch: the entry at `key` has `version` (`null`: there is none). */
export interface StateCheck {
  /** The key checked. */
  key: StateKey;
  /** The version it must have; `null`: there is no entry. */
  version: string | null;
}

/** A write of a batch: a value to set at `key`, or (without `set`) a deletion. */
export interface StateWrite {
  /** The key written. */
  key: StateKey;
  /** The value and how it is written; absent for a deletion. */
  set?: { value: unknown; options?: StateSetOptions };
}

/** A batch that gathers its checks and writes, in order, and hands them to `commit`. */
export function gatheredBatch(
  commit: (checks: StateCheck[], writes: StateWrite[]) => Promise<boolean>,
): StateBatch {
  const checks: StateCheck[] = [];
  const writes: StateWrite[] = [];
  const batch: StateBatch = {
    check: (key, version) => (checks.push({ key, version }), batch),
    set: (key, value, options) => (writes.push({ key, set: { value, options } }), batch),
    delete: (key) => (writes.push({ key }), batch),
    commit: () => commit(checks, writes),
  };
  return batch;
}

/** What every store keeps to: Deno KV's limits, with room to spare. */
export const STATE_LIMITS = {
  /** Bytes of a value. */
  valueBytes: 60_000,
  /** Writes in one batch. */
  batchWrites: 500,
  /** Checks in one batch. */
  batchChecks: 100,
  /** Bytes of the values of one batch together. */
  batchBytes: 400_000,
} as const;

/** How `writeInBatches` sizes its batches. */
export interface BatchSizing<T> {
  /** The writes `write` adds to a batch for one item, at most (default 2). */
  writesPerItem?: number;
  /** An item's bytes (default 0). */
  bytes?: (item: T) => number;
}

/**
 * Writes `items` in as few batches as `STATE_LIMITS` allow; a batch that fails its checks
 * throws an error saying `failure`.
 */
export async function writeInBatches<T>(
  state: StateStore,
  items: Iterable<T>,
  write: (batch: StateBatch, item: T) => void,
  failure: string,
  { writesPerItem = 2, bytes = () => 0 }: BatchSizing<T> = {},
): Promise<void> {
  let batch = state.batch();
  let count = 0, size = 0;
  const commit = async () => {
    if (count > 0 && !await batch.commit()) throw new Error(failure);
    batch = state.batch();
    count = size = 0;
  };
  for (const item of items) {
    const itemBytes = bytes(item);
    if (
      count + writesPerItem > STATE_LIMITS.batchWrites ||
      size + itemBytes > STATE_LIMITS.batchBytes
    ) await commit();
    write(batch, item);
    count += writesPerItem;
    size += itemBytes;
  }
  await commit();
}

/**
 * Rewrites the entries under `prefix` that `change` gives a new value for (`undefined`: left
 * as it is), each checked unchanged since read (one changed meanwhile is left) and written with
 * `options`; resolves to how many were rewritten. For moving what an earlier version stored
 * forward.
 */
export async function rewriteEach<T>(
  state: StateStore,
  prefix: StateKey,
  change: (value: T, key: StateKey) => unknown,
  options?: StateSetOptions,
): Promise<number> {
  let rewritten = 0;
  let batch = state.batch();
  let count = 0;
  const flush = async () => {
    if (count > 0 && await batch.commit()) rewritten += count;
    batch = state.batch();
    count = 0;
  };
  for await (const entry of state.list<T>({ prefix })) {
    const value = change(entry.value, entry.key);
    if (value === undefined) continue;
    batch.check(entry.key, entry.version).set(entry.key, value, options);
    if (++count === STATE_LIMITS.batchChecks) await flush();
  }
  await flush();
  return rewritten;
}
