/**
 * The lexical indexes of every owner's namespaces (`NamespaceIndex`), each read from the store the
 * first time it is used and kept up to date as memories are indexed and erased. A namespace
 * without memories is not kept (any name may be asked for, and an erased namespace stays empty):
 * it is read again when next used. One another writer changed (a store shared by relayers) is
 * brought up to date on next use: with the store's `rowIds`, only the rows it lacks are read.
 *
 * What they hold is bounded by a budget of bytes: past it, the namespaces used least recently
 * are let go (read again when next used), and a namespace whose memories fill half the budget
 * takes no new memory (`assertRoom`), so two such namespaces in turn are not read again each time.
 */
import type { TermsRow, VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { NamespaceIndex } from "./lexical_index.ts";

/** The default budget of the lexical indexes: 512 MiB (256 MiB for one namespace). */
const DEFAULT_LEXICON_BYTES = 512 * 2 ** 20;

/** What the lexical index reads from the vector store. */
export type TermsSource = Pick<VectorStore, "terms" | "rowIds">;

export class LexicalIndex {
  /** Each namespace's index, least recently used first. */
  #namespaces = new Map<string, Promise<NamespaceIndex>>();
  /** The bytes of each index loaded, as last counted: what counts against the budget. */
  #sizes = new Map<string, number>();
  /** The sum of `#sizes`. */
  #total = 0;
  #budget: number;
  /** Namespaces another writer changed since they were read (see `drop`). */
  #stale = new Set<string>();
  #store: TermsSource;

  /**
   * An index reading each namespace's stored terms from `store`, on first use, holding about
   * `budgetBytes` at most (default `DEFAULT_LEXICON_BYTES`).
   */
  constructor(store: TermsSource, budgetBytes = DEFAULT_LEXICON_BYTES) {
    this.#store = store;
    this.#budget = budgetBytes;
  }

  /** About the bytes the indexes loaded take, and how many namespaces they are. */
  stats(): { namespaces: number; bytes: number } {
    return { namespaces: this.#sizes.size, bytes: this.#total };
  }

  /**
   * Throws 507 `insufficient_storage` when the memories of `index` fill half the budget: the
   * namespace takes no new memory until some are erased (or the budget is raised).
   */
  assertRoom(index: NamespaceIndex): void {
    if (index.liveBytes < this.#budget / 2) return;
    throw new SvcError(
      "insufficient_storage",
      "Cannot remember more in this namespace: its lexical index fills its share of the " +
        "relayer's memory (SVC_LEXICON_MEMORY_MB). Erase memories or use another namespace",
      { details: { reason: "namespace_full" } },
    );
  }

  /** A namespace's index, read from the store the first time it is asked for. */
  namespace(owner: string, namespace: string): Promise<NamespaceIndex> {
    const key = `${owner}\0${namespace}`;
    let index = this.#namespaces.get(key);
    if (index && this.#stale.delete(key)) {
      index = this.#keep(key, this.#update(owner, namespace, index));
    } else if (index) {
      this.#namespaces.delete(key); // most recently used now
      this.#namespaces.set(key, index);
    }
    return index ?? this.#keep(key, this.#store.terms(owner, namespace).then(NamespaceIndex.build));
  }

  /** Keeps `loading` as the namespace's index, unless it fails. */
  #keep(key: string, loading: Promise<NamespaceIndex>): Promise<NamespaceIndex> {
    loading.then((loaded) => this.#release(key, loading, loaded), () => {
      if (this.#namespaces.get(key) === loading) this.#forget(key);
    });
    this.#namespaces.delete(key); // the most recently used now
    this.#namespaces.set(key, loading);
    return loading;
  }

  /**
   * `held` brought up to the rows stored now: those gone removed, those it lacks read and added.
   * Read whole again when the store cannot list its ids, or when most rows are new.
   */
  async #update(
    owner: string,
    namespace: string,
    held: Promise<NamespaceIndex>,
  ): Promise<NamespaceIndex> {
    const index = await held.catch(() => undefined);
    const stored = index && await this.#store.rowIds?.(owner, namespace);
    if (!index || !stored) return NamespaceIndex.build(await this.#store.terms(owner, namespace));
    const lacking = stored.filter((id) => !index.entry(id));
    if (lacking.length > stored.length / 2) {
      return NamespaceIndex.build(await this.#store.terms(owner, namespace));
    }
    const rows: TermsRow[] = lacking.length === 0
      ? []
      : await this.#store.terms(owner, namespace, { ids: lacking });
    const kept = new Set(stored);
    for (const { id } of index.entries()) if (!kept.has(id)) index.remove(id);
    for (const row of rows) index.add(row);
    return index;
  }

  /**
   * Lets go of the namespace `key` when `index`, still the one kept, holds no memory; otherwise
   * counts it, and lets go of the least recently used others while past the budget.
   */
  #release(key: string, kept: Promise<NamespaceIndex>, index: NamespaceIndex): void {
    if (this.#namespaces.get(key) !== kept) return;
    if (index.size === 0) return this.#forget(key);
    this.#total += index.bytes - (this.#sizes.get(key) ?? 0);
    this.#sizes.set(key, index.bytes);
    for (const [other] of this.#namespaces) {
      if (this.#total <= this.#budget) break;
      if (other !== key && this.#sizes.has(other)) this.#forget(other);
    }
  }

  #forget(key: string): void {
    this.#total -= this.#sizes.get(key) ?? 0;
    this.#sizes.delete(key);
    this.#namespaces.delete(key);
    this.#stale.delete(key);
  }

  /** Records a memory (only for namespaces already loaded; others load later). */
  async add(owner: string, namespace: string, row: TermsRow): Promise<void> {
    const key = `${owner}\0${namespace}`;
    const kept = this.#namespaces.get(key);
    if (!kept) return;
    const index = await kept;
    index.add(row);
    this.#release(key, kept, index);
  }

  /** Forgets every namespace loaded (the store's rows were replaced): each is read again. */
  clear(): void {
    this.#namespaces.clear();
    this.#sizes.clear();
    this.#total = 0;
    this.#stale.clear();
  }

  /** Another writer changed the namespace: it is brought up to date on next use. */
  drop(owner: string, namespace: string): void {
    const key = `${owner}\0${namespace}`;
    if (this.#namespaces.has(key)) this.#stale.add(key);
  }

  /** Forgets memories (only in namespaces already loaded; others load without them). */
  async remove(owner: string, namespace: string, ids: string[]): Promise<void> {
    const key = `${owner}\0${namespace}`;
    const kept = this.#namespaces.get(key);
    if (!kept) return;
    const index = await kept;
    for (const id of ids) index.remove(id);
    this.#release(key, kept, index);
  }
}
