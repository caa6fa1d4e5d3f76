/**
 * The namespaces decrypted in memory, least recently used first: a namespace is read from
 * storage and decrypted on first use (concurrent uses share one load), and past the memory
 * budget the least recently used others are evicted.
 */
import type { Logger } from "../../src/kit.ts";
import { decodeBlock } from "./block.ts";
import type { IndexKeys, NamespaceRef } from "./keys.ts";
import { Resident } from "./resident.ts";
import type { BlockStorage, StoredBlock, StoredHeader } from "./storage.ts";

/** Blocks decrypted at once during a load. */
const LOAD_BATCH = 64;

export class NamespaceCache {
  #storage: BlockStorage;
  #keys: IndexKeys;
  #dimensions: number;
  #budget: number;
  #logger: Logger;
  #residents = new Map<string, Resident>();
  #loading = new Map<string, Promise<Resident>>();
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

  /** The namespace in memory, if it is. */
  held(ns: string): Resident | undefined {
    return this.#residents.get(ns);
  }

  /** Forgets a namespace (it is loaded again on next use). */
  drop(ns: string): void {
    this.#residents.delete(ns);
  }

  clear(): void {
    this.#residents.clear();
  }

  /** The namespaces in memory and about the bytes they hold. */
  stats(): { namespaces: number; bytes: number } {
    let bytes = 0;
    for (const resident of this.#residents.values()) bytes += resident.memoryBytes;
    return { namespaces: this.#residents.size, bytes };
  }

  /**
   * The namespace in memory, loaded when it is not, or when `stored` (its header as stored
   * now) is of another version.
   */
  get(ref: NamespaceRef, stored?: StoredHeader): Promise<Resident> {
    const resident = this.#residents.get(ref.ns);
    if (resident && (stored === undefined || stored.version === resident.version)) {
      this.#residents.delete(ref.ns);
      this.#residents.set(ref.ns, resident);
      return Promise.resolve(resident);
    }
    let loading = this.#loading.get(ref.ns);
    if (!loading) {
      loading = this.#load(ref).finally(() => this.#loading.delete(ref.ns));
      this.#loading.set(ref.ns, loading);
    }
    return loading;
  }

  /** Reads and decrypts a namespace; read again when a commit changed it meanwhile. */
  async #load(ref: NamespaceRef): Promise<Resident> {
    let resident = new Resident(this.#dimensions);
    let header = await this.#storage.header(ref);
    for (let attempt = 0; attempt < 3; attempt++) {
      resident = new Resident(this.#dimensions, header?.header.count);
      if (!header) break;
      // Blocks are decrypted a batch at a time while the next batch is read.
      const add = async (blocks: StoredBlock[]) => {
        const plain = await Promise.all(
          blocks.map((block) => this.#keys.openBlock(ref, block.id, block.bytes)),
        );
        blocks.forEach((block, j) => {
          resident.addBlock(block.id, block.bytes.length, decodeBlock(plain[j], this.#dimensions));
        });
      };
      let batch: StoredBlock[] = [];
      let adding = Promise.resolve();
      try {
        for await (const block of this.#storage.blocks(ref, header.version)) {
          batch.push(block);
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
      resident.version = header.version;
      resident.sealedName = header.header.name;
      const after = await this.#storage.header(ref);
      if (after?.version === header.version) break;
      header = after;
    }
    // Under writes that outpaced every attempt, the rows are of an older version than `header`
    // (read anew on the next look-up): only rows and header of one version must agree.
    if (header && header.version === resident.version && resident.count !== header.header.count) {
      this.#logger.warn("vector index namespace count differs from its rows", {
        namespace: ref.ns,
        recorded: header.header.count,
        found: resident.count,
      });
    }
    this.#residents.delete(ref.ns);
    this.#residents.set(ref.ns, resident);
    this.evict(ref.ns);
    return resident;
  }

  /** Evicts least recently used namespaces until the rest fit the memory budget. */
  evict(keep?: string): void {
    let total = 0;
    for (const resident of this.#residents.values()) total += resident.memoryBytes;
    for (const [ns, resident] of this.#residents) {
      if (total <= this.#budget) break;
      if (ns === keep || this.#residents.size === 1) continue;
      this.#residents.delete(ns);
      total -= resident.memoryBytes;
    }
    if (total > this.#budget && keep && !this.#oversized.has(keep)) {
      this.#oversized.add(keep);
      this.#logger.warn("a namespace of the vector index needs more memory than its budget", {
        namespace: keep,
        needed_mb: Math.ceil(total / 1024 / 1024),
        budget_mb: Math.floor(this.#budget / 1024 / 1024),
      });
    }
  }
}
