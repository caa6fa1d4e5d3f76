/**
 * The namespaces decrypted in memory, least recently used first: a namespace is read from
 * storage and decrypted on first use (concurrent uses share one load), and past the memory
 * budget the least recently used others are evicted. A namespace another writer changed is
 * brought up to date from the one held: stored blocks never change (a change writes new ones),
 * so only the blocks it does not hold are read and decrypted, and those no longer stored dropped.
 */
import type { Logger } from "@svc/relayer/kit";
import { LruMap } from "@svc/util/lru_map";
import { SharedRuns } from "@svc/util/shared_runs";
import { type BlockColumns, decodeBlock } from "./block.ts";
import type { IndexKeys, NamespaceRef } from "./keys.ts";
import { Resident } from "./resident.ts";
import type { BlockStorage, StoredBlock, StoredHeader } from "./storage.ts";

/** Blocks decrypted at once during a load. */
const LOAD_BATCH = 64;
/** Namespaces whose newest row's time is remembered (see `newest`): about 100 bytes each. */
const NEWEST_KEPT = 100_000;

export class NamespaceCache {
  #storage: BlockStorage;
  #keys: IndexKeys;
  #dimensions: number;
  #budget: number;
  #logger: Logger;
  #residents = new Map<string, Resident>();
  /** The bytes of each resident as last counted, and their sum: what counts against the budget. */
  #sizes = new Map<string, number>();
  #total = 0;
  /** Each namespace's newest row's time, by the version it was read at. */
  #newest = new LruMap<string, { version: string; at: number }>(NEWEST_KEPT);
  #loading = new SharedRuns<string, Resident>();
  /** Namespaces held that may be out of date (see `drop`). */
  #stale = new Set<string>();
  #oversized = new Set<string>();

  /** A cache of at most about `budget` bytes (a single larger namespace is kept, and logged). */
  constructor(
    storage: BlockStorage,
    keys: IndexKeys,
    dimensions: number,
    budget: number,
    logger: Logger,
  ) {
    this.#storage = storage;
    this.#keys = keys;
    this.#dimensions = dimensions;
    this.#budget = budget;
    this.#logger = logger;
  }

  /** The namespace in memory, if it is and is not out of date. */
  held(ns: string): Resident | undefined {
    return this.#stale.has(ns) ? undefined : this.#residents.get(ns);
  }

  /**
   * Marks a namespace out of date: it is read again on next use, decrypting only the blocks it
   * does not hold (a stored block never changes).
   */
  drop(ns: string): void {
    if (this.#residents.has(ns)) this.#stale.add(ns);
  }

  /** Marks every namespace out of date. */
  dropAll(): void {
    for (const ns of this.#residents.keys()) this.#stale.add(ns);
  }

  /** Forgets a namespace (one erased). */
  forget(ns: string): void {
    this.#residents.delete(ns);
    this.#stale.delete(ns);
    this.#total -= this.#sizes.get(ns) ?? 0;
    this.#sizes.delete(ns);
  }

  clear(): void {
    this.#residents.clear();
    this.#stale.clear();
    this.#sizes.clear();
    this.#total = 0;
  }

  /** The namespaces in memory and about the bytes they hold. */
  stats(): { namespaces: number; bytes: number } {
    return { namespaces: this.#residents.size, bytes: this.#total };
  }

  /**
   * The namespace in memory, loaded when it is not, or when `stored` (its header as stored
   * now) is of another version.
   */
  get(ref: NamespaceRef, stored?: StoredHeader): Promise<Resident> {
    const resident = this.held(ref.ns);
    if (resident && (stored === undefined || stored.version === resident.version)) {
      this.#residents.delete(ref.ns);
      this.#residents.set(ref.ns, resident);
      return Promise.resolve(resident);
    }
    return this.#loading.run(ref.ns, () => this.#load(ref));
  }

  /**
   * When the newest row of the namespace at `stored` was written (Unix milliseconds; 0 for none),
   * from the namespace held, or else read without being kept: a listing of many namespaces does
   * not push out those in use.
   */
  async newest(ref: NamespaceRef, stored: StoredHeader): Promise<number> {
    const known = this.#newest.get(ref.ns);
    if (known?.version === stored.version) return known.at;
    const held = this.held(ref.ns);
    const resident = held?.version === stored.version ? held : await this.#read(ref, stored);
    this.#newest.set(ref.ns, { version: stored.version, at: resident.newest });
    return resident.newest;
  }

  /**
   * Reads a namespace, or brings the one held (out of date) up to its stored version; read
   * again, from what was read, when a commit changed it meanwhile.
   */
  async #load(ref: NamespaceRef): Promise<Resident> {
    let resident = new Resident(this.#dimensions);
    let header = await this.#storage.header(ref);
    let base = this.#residents.get(ref.ns);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (!header) {
        resident = new Resident(this.#dimensions);
        break;
      }
      if (!base?.whole) resident = await this.#read(ref, header);
      else if (base.version === header.version) resident = base; // it had not changed
      else resident = await this.#update(ref, header, base);
      resident.version = header.version;
      resident.sealedName = header.header.name;
      const after = await this.#storage.header(ref);
      if (after?.version === header.version) break;
      base = resident;
      header = after;
    }
    // Under writes that outpaced every attempt, the rows are of a later version than the one
    // they are labelled with, read anew (from them) on the next look-up: only rows and header
    // of one version must agree.
    if (header && header.version === resident.version && resident.count !== header.header.count) {
      this.#logger.warn("vector index namespace count differs from its rows", {
        namespace: ref.ns,
        recorded: header.header.count,
        found: resident.count,
      });
    }
    this.#residents.delete(ref.ns);
    this.#residents.set(ref.ns, resident);
    this.#stale.delete(ref.ns);
    this.evict([ref.ns], ref.ns);
    return resident;
  }

  /** Reads every block of a namespace. */
  async #read(ref: NamespaceRef, header: StoredHeader): Promise<Resident> {
    const resident = new Resident(this.#dimensions, header.header.count);
    await this.#blocks(ref, header.version, new Set(), (id, sealedBytes, columns) => {
      if (columns) resident.addBlock(id, sealedBytes, columns);
    });
    return resident;
  }

  /**
   * `base` brought to the blocks stored now: those gone are dropped, only those new are read.
   * It changes in place (nothing else reads a namespace out of date: its uses wait for this
   * load) unless a write is planned against it, which then applies to it: a copy is changed
   * instead. A block `base` held as the read began and dropped since (for a commit of this
   * store's) is missing; that commit moved the namespace on, so the load reads again.
   */
  async #update(ref: NamespaceRef, header: StoredHeader, base: Resident): Promise<Resident> {
    const listed = new Set<string>();
    const fresh: [string, number, BlockColumns][] = [];
    await this.#blocks(ref, header.version, new Set(base.blocks.keys()), (id, size, columns) => {
      listed.add(id);
      if (columns) fresh.push([id, size, columns]);
    });
    const resident = base.planned ? base.copy() : base;
    resident.dropBlocks(new Set([...resident.blocks.keys()].filter((id) => !listed.has(id))));
    for (const [id, size, columns] of fresh) {
      if (!resident.blocks.has(id)) resident.addBlock(id, size, columns);
    }
    return resident;
  }

  /**
   * Reads a namespace's blocks at `version`, decrypting those not in `held` a batch at a time
   * while the next batch is read; `take` gets each (`columns` is `null` for one held).
   */
  async #blocks(
    ref: NamespaceRef,
    version: string,
    held: ReadonlySet<string>,
    take: (id: string, sealedBytes: number, columns: BlockColumns | null) => void,
  ): Promise<void> {
    const add = async (blocks: StoredBlock[]) => {
      const plain = await Promise.all(
        blocks.map((block) => this.#keys.openBlock(ref, block.id, block.bytes)),
      );
      blocks.forEach((block, j) => {
        take(block.id, block.bytes.length, decodeBlock(plain[j], this.#dimensions));
      });
    };
    let batch: StoredBlock[] = [];
    let adding = Promise.resolve();
    try {
      for await (const { id, bytes } of this.#storage.blocks(ref, version, held)) {
        if (bytes === null) {
          take(id, 0, null);
          continue;
        }
        batch.push({ id, bytes });
        if (batch.length === LOAD_BATCH) {
          await adding;
          adding = add(batch);
          batch = [];
        }
      }
    } catch (error) {
      await adding.catch(() => {}); // the read's error is the one to report
      throw error;
    }
    await adding;
    await add(batch);
  }

  /**
   * Counts the namespaces `changed` (loaded, or written in place) anew, then evicts the least
   * recently used others than `keep` until the rest fit the memory budget.
   */
  evict(changed: Iterable<string>, keep?: string): void {
    for (const ns of changed) {
      const bytes = this.#residents.get(ns)?.memoryBytes;
      if (bytes === undefined) continue;
      this.#total += bytes - (this.#sizes.get(ns) ?? 0);
      this.#sizes.set(ns, bytes);
    }
    for (const ns of this.#residents.keys()) {
      if (this.#total <= this.#budget) break;
      if (ns !== keep && this.#residents.size > 1) this.forget(ns);
    }
    if (this.#total > this.#budget && keep && !this.#oversized.has(keep)) {
      this.#oversized.add(keep);
      this.#logger.warn("a namespace of the vector index needs more memory than its budget", {
        namespace: keep,
        needed_mb: Math.ceil(this.#total / 1024 / 1024),
        budget_mb: Math.floor(this.#budget / 1024 / 1024),
      });
    }
  }
}
