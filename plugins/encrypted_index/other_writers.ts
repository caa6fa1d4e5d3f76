/**
 * What a store learns of other writers of a shared index (a `BlockStorage` with `watch`, such as
 * PostgreSQL's): a namespace another writer changed is dropped from memory (it is read again
 * when next used), and the store's listeners are told, by name, so that what they read from it
 * (the relayer's lexical index) is read again.
 *
 * Notifications are fast but not guaranteed (a lost connection, a slow listener). So a
 * namespace held in memory is trusted without reading its stored version only for
 * `revalidateMs` after its version was last known to be the stored one, and only while no
 * notification named a later version; past that, a search reads the header (one small query)
 * first. When the storage says notifications were interrupted, everything held is dropped and
 * the listeners are told to read everything again.
 */
import type { Logger } from "@svc/relayer/kit";
import type { NamespaceCache } from "./cache.ts";
import type { NamespaceRef } from "./keys.ts";
import type { Resident } from "./resident.ts";
import type { StorageWatcher } from "./storage.ts";

/** Names (and later versions) remembered for this many namespaces before starting over. */
const NAMES_LIMIT = 100_000;

/** Follows other writers' commits for one store; see the module documentation. */
export class OtherWriters implements StorageWatcher {
  #cache: NamespaceCache;
  #revalidateMs: number;
  #logger: Logger;
  /** Namespace hash → its owner and name, for those this store was asked about. */
  #names = new Map<string, { owner: string; namespace: string }>();
  /** Namespace hash → the latest version another writer was heard to commit. */
  #moved = new Map<string, string>();
  #changed: ((owner: string, namespace: string) => void)[] = [];
  #replaced: (() => void)[] = [];

  constructor(cache: NamespaceCache, revalidateMs: number, logger: Logger) {
    this.#cache = cache;
    this.#revalidateMs = revalidateMs;
    this.#logger = logger;
  }

  /** Calls `listener` with each namespace another writer changed (of those named here). */
  onChanged(listener: (owner: string, namespace: string) => void): void {
    this.#changed.push(listener);
  }

  /** Calls `listener` when anything may have changed (notifications were interrupted). */
  onReplaced(listener: () => void): void {
    this.#replaced.push(listener);
  }

  /** Remembers the name of a namespace the store was asked about. */
  name(ref: NamespaceRef, owner: string, namespace: string): void {
    if (this.#names.has(ref.ns)) return;
    if (this.#names.size >= NAMES_LIMIT) {
      // Forgotten names could not be told of: everything is read again instead.
      this.#names.clear();
      this.#tell(this.#replaced, []);
    }
    this.#names.set(ref.ns, { owner, namespace });
  }

  /** Whether `resident` can be searched without reading its stored version first. */
  trusts(ns: string, resident: Resident): boolean {
    const moved = this.#moved.get(ns);
    if (moved !== undefined && moved > (resident.version ?? "")) return false;
    return performance.now() - resident.checkedAt < this.#revalidateMs;
  }

  changed(ref: NamespaceRef, version: string): void {
    const held = this.#cache.held(ref.ns);
    if (!held || (held.version ?? "") < version) {
      if (this.#moved.size >= NAMES_LIMIT) this.#moved.clear();
      this.#moved.set(ref.ns, version);
      if (held) this.#cache.drop(ref.ns);
    }
    const name = this.#names.get(ref.ns);
    if (name) this.#tell(this.#changed, [name.owner, name.namespace]);
  }

  lost(): void {
    this.#cache.dropAll();
    this.#moved.clear();
    this.#tell(this.#replaced, []);
  }

  #tell(listeners: ((...args: string[]) => void)[], args: string[]): void {
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (error) {
        this.#logger.error("a listener of the vector index's changes failed", { error });
      }
    }
  }
}
