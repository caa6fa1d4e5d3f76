/**
 * The encrypted vector index, the default: nothing of a memory is readable at rest without the
 * relayer's master key. Each owner's namespace is stored as blocks of rows (vectors, term
 * hashes, ids, times, each memory's `MemoryInfo`) sealed with ChaCha20-Poly1305 under a key
 * derived (HKDF) from the master key for that namespace; owners and namespaces are filed under
 * keyed hashes (HMAC), never by name.
 * A namespace is decrypted into memory the first time it is used and searched there exactly
 * (cosine, over one contiguous `Float32Array`); least recently used namespaces are evicted past
 * a memory budget. Storage is a SQLite file (`sqlite_storage.ts`) behind a small interface
 * (`storage.ts`), a crash leaving each write whole or absent; another storage can be given
 * instead (`storage`: Deno KV's, or the PostgreSQL plugin's, shared by many relayers).
 *
 * Writes go through one writer per store. A namespace's stored version is checked by each
 * commit, and before each search unless the store is the index's only writer (`soleWriter`, as
 * in a relayer, which owns its data directory), so another process writing the same index is
 * noticed (its changes are loaded, a conflicting commit is planned again). A storage that tells
 * of other writers' commits (`BlockStorage.watch`) lets a search trust what it holds for a
 * while instead (`revalidateMs`, see `other_writers.ts`).
 *
 * @example
 * ```ts
 * const store = await EncryptedVectorStore.open({
 *   path: "./data/index.sqlite", secret, model: embedder.model, dimensions: embedder.dimensions,
 * });
 * ```
 */
import {
  backendError,
  type CallOptions,
  createLogger,
  type IndexPartition,
  type Logger,
  type NamespaceCount,
  SvcError,
  type TermsRow,
  type VectorHit,
  type VectorRow,
  type VectorStore,
} from "@svc/relayer/kit";
import { inTurn } from "@svc/util/in_turn";
import { LruMap } from "@svc/util/lru_map";
import { infoText } from "./block.ts";
import { NamespaceCache } from "./cache.ts";
import { OtherWriters } from "./other_writers.ts";
import { chunkLength, type NewRow, planChange, type WriteItem } from "./changes.ts";
import type { IndexKeys, NamespaceRef } from "./keys.ts";
import { openKeys } from "./meta_check.ts";
import { SqliteBlockStorage } from "./sqlite_storage.ts";
import { type Resident, unit } from "./resident.ts";
import type { BlockStorage, StoredHeader } from "./storage.ts";

const PLUGIN = "the encrypted vector index";
/** Times a change is planned again after another writer changed its namespaces. */
const RETRIES = 5;
/** The same on a storage relayers share, where writers to one namespace contend by design. */
const SHARED_RETRIES = 40;
/** Namespaces whose names are kept decrypted: about 200 bytes each. */
const NAMES_KEPT = 100_000;
/** Namespaces read at once to learn their newest row's time (`namespaces` with `newest`). */
const NEWEST_READS = 8;

/** Strings in code-unit order. */
const order = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;

/** How to open an {@linkcode EncryptedVectorStore}. */
export interface EncryptedIndexOptions {
  /**
   * The SQLite file, for example `<data dir>/index.sqlite` (created, with its directory, if
   * missing; SQLite keeps `-wal` and `-shm` files beside it). Not read when `storage` is given.
   */
  path?: string;
  /**
   * An opened storage to use instead of a file (the store closes it); `where` then
   * names it in messages.
   */
  storage?: BlockStorage;
  /** Where the index is, for messages, with `storage` (default: "the given storage"). */
  where?: string;
  /** The relayer's 32-byte secret, from which every key of the index is derived. */
  secret: Uint8Array<ArrayBuffer>;
  /** The embedder's model id; an index built by another is refused. */
  model: string;
  /** The embedder's vector size; an index of another size is refused. */
  dimensions: number;
  /** Memory for decrypted namespaces, in MiB (default 512). */
  memoryMb?: number;
  /**
   * `true` when nothing but this store writes the index: a search then trusts the namespace it
   * holds in memory (this store's own commits are applied to it) and reads no stored version
   * first. Commits still check, so a write is never lost if another process writes after all.
   * Default `false`: every search reads the namespace's stored version.
   */
  soleWriter?: boolean;
  /**
   * With a storage that tells of other writers' commits (and not `soleWriter`): how long, in
   * milliseconds, a search trusts a namespace held in memory before reading its stored version
   * again, in case a notification was lost (default 1000; 0 reads it before every search).
   */
  revalidateMs?: number;
  /** Where warnings go (default: JSON lines on stderr). */
  logger?: Logger;
}

/**
 * The encrypted vector index: a {@linkcode VectorStore} whose rows are sealed at rest under
 * keys derived from the relayer's secret, searched exactly in memory. Open it with
 * {@linkcode EncryptedVectorStore.open}; close it with {@linkcode EncryptedVectorStore.close}.
 */
export class EncryptedVectorStore implements VectorStore {
  /** The backend's name. */
  readonly name = "encrypted";
  /** The vector size of the index. */
  readonly dimensions: number;
  #storage: BlockStorage;
  #keys: IndexKeys;
  /**
   * Each namespace's owner and name, as its header seals them, by where it is filed (which they
   * name: a header never names others).
   */
  #names = new LruMap<string, Promise<string[]>>(NAMES_KEPT);
  #logger: Logger;
  #cache: NamespaceCache;
  /** The single writer: queued writes apply in order, one atomic change at a time. */
  #writes = inTurn();
  /** Writes queued and not done yet. */
  #queued = 0;
  #committing: Promise<unknown> | null = null;
  #soleWriter: boolean;
  #others: OtherWriters | undefined;
  #unwatch: (() => void) | undefined;

  private constructor(
    storage: BlockStorage,
    keys: IndexKeys,
    options: EncryptedIndexOptions,
  ) {
    this.#storage = storage;
    this.#keys = keys;
    this.dimensions = options.dimensions;
    this.#soleWriter = options.soleWriter ?? false;
    this.#logger = options.logger ?? createLogger("warn");
    const budget = (options.memoryMb ?? 512) * 1024 * 1024;
    this.#cache = new NamespaceCache(storage, keys, this.dimensions, budget, this.#logger);
    if (storage.watch && !this.#soleWriter) {
      const others = new OtherWriters(this.#cache, options.revalidateMs ?? 1000, this.#logger);
      this.#others = others;
      this.#unwatch = storage.watch(others);
    }
  }

  /** Opens the index, refusing one written under another secret or by another embedder. */
  static async open(options: EncryptedIndexOptions): Promise<EncryptedVectorStore> {
    const where = options.storage ? options.where ?? "the given storage" : options.path;
    let storage: BlockStorage;
    try {
      if (options.storage) storage = options.storage;
      else if (options.path !== undefined) storage = await SqliteBlockStorage.open(options.path);
      else throw new SvcError("internal", "Cannot open the vector index: no path or storage");
    } catch (error) {
      throw backendError(PLUGIN, `open the vector index in ${where}`, error);
    }
    try {
      const keys = await openKeys(storage, options, where);
      return new EncryptedVectorStore(storage, keys, options);
    } catch (error) {
      storage.close();
      throw backendError(PLUGIN, `open the vector index in ${where}`, error);
    }
  }

  /** A clear note kept with the index (the composition records an import's progress). */
  async note(name: string): Promise<string | null> {
    return await this.#call("read the vector index", () => this.#storage.note(name));
  }

  /** Writes a note. */
  async setNote(name: string, value: string): Promise<void> {
    await this.#call("write the vector index", () => this.#storage.setNote(name, value));
  }

  async #call<T>(action: string, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      throw backendError(PLUGIN, action, error);
    }
  }

  #vector(vector: ArrayLike<number>, what: string): Float32Array {
    if (vector.length !== this.dimensions) {
      throw new SvcError(
        "bad_request",
        `Cannot ${what}: the vector has ${vector.length} numbers, the index ${this.dimensions}`,
      );
    }
    for (let i = 0; i < vector.length; i++) {
      if (!Number.isFinite(vector[i])) {
        throw new SvcError("bad_request", `Cannot ${what}: the vector has a non-finite number`);
      }
    }
    return unit(vector);
  }

  async upsert(rows: VectorRow[], options?: CallOptions): Promise<void> {
    options?.signal?.throwIfAborted();
    // Checked, copied and queued before anything is awaited, so writes apply in the order they
    // were called and a caller changing its rows afterwards does not change what is written.
    const checked = rows.map((r) => ({
      r,
      row: {
        id: r.id,
        blobId: r.blobId,
        createdAt: r.createdAt,
        vector: this.#vector(r.vector, "index the memory"),
        terms: r.terms?.join(" ") ?? "",
        info: infoText(r.info),
      },
    }));
    const items = Promise.all(checked.map(async ({ r, row }) => {
      const ref = await this.#keys.ref(r.owner, r.namespace);
      this.#others?.name(ref, r.owner, r.namespace);
      const add: NewRow = { ref, owner: r.owner, namespace: r.namespace, row };
      return { id: r.id, add };
    })).then((all) => [...new Map(all.map((item) => [item.id, item])).values()]);
    return await this.#enqueue(rows.length, items, options?.signal);
  }

  async delete(ids: string[], options?: CallOptions): Promise<void> {
    options?.signal?.throwIfAborted();
    const items = [...new Set(ids)].map((id): WriteItem => ({ id }));
    return await this.#enqueue(items.length, Promise.resolve(items), options?.signal);
  }

  #enqueue(count: number, items: Promise<WriteItem[]>, signal?: AbortSignal): Promise<void> {
    if (count === 0) return Promise.resolve();
    items.catch(() => {}); // awaited by the writer, unless the write is cancelled first
    this.#queued++;
    return this.#writes(async () => {
      signal?.throwIfAborted();
      try {
        await this.#write(await items);
      } catch (error) {
        throw backendError(PLUGIN, "write the vector index", error);
      }
    }).finally(() => this.#queued--);
  }

  async #write(items: WriteItem[]): Promise<void> {
    let at = 0;
    let conflicts = 0;
    const written = new Set<string>();
    // Counted even when a later chunk fails: those before it changed their namespaces.
    try {
      while (at < items.length) {
        const window = items.slice(at, at + 128);
        const located = await this.#storage.locate(window.map((item) => item.id));
        const refs = new Map<string, NamespaceRef>();
        for (const ref of located.values()) refs.set(ref.ns, ref);
        for (const item of window) if (item.add) refs.set(item.add.ref.ns, item.add.ref);
        const residents = new Map<string, Resident>();
        for (const ref of refs.values()) residents.set(ref.ns, await this.#cache.get(ref));
        const chunk = window.slice(0, chunkLength(window, located, residents));
        if (await this.#commit(chunk, located, residents) === null) {
          // Another writer changed these namespaces: load them again and plan again.
          for (const ns of residents.keys()) this.#cache.drop(ns);
          if (++conflicts > (this.#others ? SHARED_RETRIES : RETRIES)) {
            throw new SvcError(
              "backend_unavailable",
              "Cannot write the vector index: it keeps changing under this relayer (is another " +
                "process writing the same index?)",
            );
          }
          if (this.#others) {
            // Writers that just collided would collide again: each waits a random while first.
            const ms = Math.random() * Math.min(200, 2 ** conflicts);
            await new Promise((resolve) => setTimeout(resolve, ms));
          }
          continue;
        }
        for (const ns of residents.keys()) written.add(ns);
        at += chunk.length;
      }
    } finally {
      this.#cache.evict(written);
    }
  }

  /**
   * Plans the change writing `chunk` and commits it; once it landed, applies it to `residents`
   * and resolves to the new version, else (another writer changed their namespaces) to `null`.
   * While it is planned, a load brings a copy of them up to date rather than them.
   */
  async #commit(
    chunk: WriteItem[],
    located: Map<string, NamespaceRef>,
    residents: Map<string, Resident>,
  ): Promise<string | null> {
    for (const resident of residents.values()) resident.planned = true;
    try {
      const planned = await planChange(this.#keys, this.dimensions, chunk, located, residents);
      const checkedAt = performance.now();
      const commit = this.#storage.commit(planned.change);
      this.#committing = commit;
      const version = await commit.catch((error) => {
        // It may have landed all the same: what is held is reloaded from the store when used.
        for (const ns of residents.keys()) this.#cache.drop(ns);
        throw error;
      }).finally(() => this.#committing = null);
      if (version === null) return null;
      planned.apply(version);
      for (const [ns, resident] of residents) {
        // The commit checked the versions it was planned against: what is held was current.
        resident.checkedAt = checkedAt;
        // One evicted meanwhile and read again before the commit landed lacks it: read anew.
        if (this.#cache.held(ns) !== resident) this.#cache.drop(ns);
      }
      return version;
    } finally {
      for (const resident of residents.values()) resident.planned = false;
    }
  }

  /** The namespace's rows as stored now, `null` when it has none. */
  async #current(ref: NamespaceRef): Promise<Resident | null> {
    const trusted = this.#cache.held(ref.ns);
    if (trusted && (this.#soleWriter || this.#others?.trusts(ref.ns, trusted))) {
      return await this.#cache.get(ref);
    }
    const checkedAt = performance.now();
    let stored = await this.#storage.header(ref);
    const held = this.#cache.held(ref.ns);
    if (held && stored && held.version !== stored.version && this.#committing) {
      // Likely this store's own commit, not yet applied: wait for it rather than reload.
      await this.#committing.catch(() => {});
      stored = await this.#storage.header(ref);
    }
    if (held?.version && held.version !== stored?.version) {
      // Another writer's change whose notification did not come: what listeners hold of the
      // namespace (the relayer's lexicon) is stale too.
      this.#others?.changed(ref, stored?.version ?? held.version);
    }
    if (!stored) {
      this.#cache.forget(ref.ns); // erased (by another writer, if anything was held)
      return null;
    }
    const resident = await this.#cache.get(ref, stored);
    if (resident.version === stored.version) {
      resident.checkedAt = Math.max(resident.checkedAt, checkedAt);
    }
    return resident;
  }

  async search(
    owner: string,
    namespace: string,
    vector: Float32Array | number[],
    k: number,
    options: CallOptions & { ids?: string[] } = {},
  ): Promise<VectorHit[]> {
    options.signal?.throwIfAborted();
    const query = this.#vector(vector, "search the vector index");
    if (options.ids?.length === 0 || k <= 0) return [];
    const resident = await this.#resident(owner, namespace, "search the vector index", options);
    return resident?.search(query, k, options.ids) ?? [];
  }

  async has(ids: string[], options?: CallOptions): Promise<Set<string>> {
    options?.signal?.throwIfAborted();
    if (ids.length === 0) return new Set();
    const located = await this.#call("read the vector index", () => this.#storage.locate(ids));
    return new Set(located.keys());
  }

  /** The names of `headers`, decrypted, with their counts. */
  async #named(headers: StoredHeader[]) {
    return await Promise.all(headers.map(async (stored) => {
      const [owner, namespace] = await this.#names.getOrSet(stored.ref.ns, async () => {
        const plain = await this.#keys.open(stored.ref, "name", stored.header.name);
        return JSON.parse(new TextDecoder().decode(plain)) as string[];
      }).catch((error) => {
        this.#names.delete(stored.ref.ns);
        throw error;
      });
      return { owner, namespace, count: stored.header.count, stored };
    }));
  }

  async count(
    filter: { owner?: string; namespace?: string } = {},
    options?: CallOptions,
  ): Promise<number> {
    options?.signal?.throwIfAborted();
    const { owner, namespace } = filter;
    return await this.#call("count the vector index", async () => {
      if (owner !== undefined && namespace !== undefined) {
        return (await this.#storage.header(await this.#keys.ref(owner, namespace)))?.header
          .count ?? 0;
      }
      const headers = await this.#storage.headers(
        owner === undefined ? undefined : await this.#keys.owner(owner),
      );
      if (namespace === undefined) return headers.reduce((n, h) => n + h.header.count, 0);
      return (await this.#named(headers)).filter((h) => h.namespace === namespace)
        .reduce((n, h) => n + h.count, 0);
    });
  }

  async terms(
    owner: string,
    namespace: string,
    options?: CallOptions & { ids?: string[] },
  ): Promise<TermsRow[]> {
    const resident = await this.#resident(owner, namespace, "read the stored terms", options);
    return resident?.terms(options?.ids) ?? [];
  }

  async rowIds(owner: string, namespace: string, options?: CallOptions): Promise<string[]> {
    const resident = await this.#resident(owner, namespace, "read the stored ids", options);
    return resident?.ids() ?? [];
  }

  /** The namespace's rows as stored now, named for `action` in errors. */
  async #resident(owner: string, namespace: string, action: string, options?: CallOptions) {
    options?.signal?.throwIfAborted();
    const ref = await this.#keys.ref(owner, namespace);
    this.#others?.name(ref, owner, namespace);
    const resident = await this.#call(action, () => this.#current(ref));
    options?.signal?.throwIfAborted();
    return resident;
  }

  async namespaces(
    owner: string,
    options?: CallOptions & { newest?: boolean },
  ): Promise<NamespaceCount[]> {
    options?.signal?.throwIfAborted();
    return await this.#call("list namespaces", async () => {
      const headers = await this.#storage.headers(await this.#keys.owner(owner));
      const listed = (await this.#named(headers))
        .filter((h) => h.owner === owner && h.count > 0)
        .sort((a, b) => order(a.namespace, b.namespace));
      const counts: NamespaceCount[] = listed.map(({ namespace, count }) => ({ namespace, count }));
      if (!options?.newest) return counts;
      // A few at a time: each namespace not held is read (and let go) to learn it.
      for (let at = 0; at < listed.length; at += NEWEST_READS) {
        options.signal?.throwIfAborted();
        await Promise.all(
          listed.slice(at, at + NEWEST_READS).map(async ({ stored }, i) => {
            counts[at + i].newest = await this.#cache.newest(stored.ref, stored);
          }),
        );
      }
      return counts;
    });
  }

  async partitions(options?: CallOptions): Promise<IndexPartition[]> {
    options?.signal?.throwIfAborted();
    return await this.#call("list the index's namespaces", async () => {
      return (await this.#named(await this.#storage.headers()))
        .filter((h) => h.count > 0)
        .map(({ owner, namespace, count }) => ({ owner, namespace, count }))
        .sort((a, b) => order(a.owner, b.owner) || order(a.namespace, b.namespace));
    });
  }

  /**
   * With a shared storage: calls `listener` with each namespace another writer changed (among
   * those this store was asked about), after dropping it from memory.
   */
  onChanged(listener: (owner: string, namespace: string) => void): void {
    this.#others?.onChanged(listener);
  }

  /**
   * With a shared storage: reads the namespace's stored version now, trusted or not; another
   * writer's change not heard of yet is dropped from memory and told to the `onChanged`
   * listeners before this resolves. Nothing to do for the index's only writer.
   */
  async revalidate(owner: string, namespace: string, options?: CallOptions): Promise<void> {
    options?.signal?.throwIfAborted();
    const others = this.#others;
    if (!others) return;
    const ref = await this.#keys.ref(owner, namespace);
    others.name(ref, owner, namespace);
    await this.#call("read the vector index", async () => {
      await this.#committing?.catch(() => {});
      const stored = await this.#storage.header(ref);
      const held = this.#cache.held(ref.ns)?.version;
      if (!stored) this.#cache.forget(ref.ns); // erased by another writer
      if (stored?.version !== held) others.changed(ref, stored?.version ?? "");
    });
  }

  /** With a shared storage: calls `listener` when another writer may have changed anything. */
  onReplaced(listener: () => void): void {
    this.#others?.onReplaced(listener);
  }

  /** The namespaces decrypted in memory now, and about the bytes they hold. */
  memoryStats(): { namespaces: number; bytes: number } {
    return this.#cache.stats();
  }

  /** Resolves once queued writes are done. */
  async idle(): Promise<void> {
    while (this.#queued > 0) await this.#writes(() => Promise.resolve());
  }

  /** Waits for queued writes, then closes the database (the store is unusable after). */
  async close(): Promise<void> {
    await this.idle();
    this.#unwatch?.();
    this.#cache.clear();
    this.#storage.close();
  }
}

export { EncryptedIndexSet, type EncryptedIndexSetOptions } from "./index_set.ts";
export type {
  CallOptions,
  IndexEmbedding,
  IndexPartition,
  LogFields,
  Logger,
  MemoryInfo,
  NamespaceCount,
  TermsRow,
  VectorHit,
  VectorIndexSet,
  VectorRow,
  VectorStore,
} from "@svc/relayer/kit";
