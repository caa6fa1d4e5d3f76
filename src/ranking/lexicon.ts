/**
 * The lexical indexes of every owner's namespaces (`NamespaceIndex`), each read from the store the
 * first time it is used and kept up to date as memories are indexed and erased. A namespace
 * without memories is not kept (any name may be asked for, and an erased namespace stays empty):
 * it is read again when next used. One another writer changed (a store shared by relayers) is
 * brought up to date on next use: with the store's `rowIds`, only the rows it lacks are read.
 */
import type { TermsRow, VectorStore } from "../backends/types.ts";
import { NamespaceIndex } from "./lexical_index.ts";

/** What the lexical index reads from the vector store. */
export type TermsSource = Pick<VectorStore, "terms" | "rowIds">;

export class LexicalIndex {
  #namespaces = new Map<string, Promise<NamespaceIndex>>();
  /** Namespaces another writer changed since they were read (see `drop`). */
  #stale = new Set<string>();
  #store: TermsSource;

  /** An index reading each namespace's stored terms from `store`, on first use. */
  constructor(store: TermsSource) {
    this.#store = store;
  }

  /** A namespace's index, read from the store the first time it is asked for. */
  namespace(owner: string, namespace: string): Promise<NamespaceIndex> {
    const key = `${owner}\0${namespace}`;
    let index = this.#namespaces.get(key);
    if (index && this.#stale.delete(key)) {
      index = this.#keep(key, this.#update(owner, namespace, index));
    }
    return index ?? this.#keep(key, this.#store.terms(owner, namespace).then(NamespaceIndex.of));
  }

  /** Keeps `loading` as the namespace's index, unless it fails. */
  #keep(key: string, loading: Promise<NamespaceIndex>): Promise<NamespaceIndex> {
    loading.then((loaded) => this.#release(key, loading, loaded), () => {
      if (this.#namespaces.get(key) === loading) this.#forget(key);
    });
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
    if (!index || !stored) return NamespaceIndex.of(await this.#store.terms(owner, namespace));
    const lacking = stored.filter((id) => !index.entry(id));
    if (lacking.length > stored.length / 2) {
      return NamespaceIndex.of(await this.#store.terms(owner, namespace));
    }
    const rows: TermsRow[] = lacking.length === 0
      ? []
      : await this.#store.terms(owner, namespace, { ids: lacking });
    const kept = new Set(stored);
    for (const { id } of index.entries()) if (!kept.has(id)) index.remove(id);
    for (const row of rows) index.add(row);
    return index;
  }

  /** Lets go of the namespace `key` when `index`, still the one kept, holds no memory. */
  #release(key: string, kept: Promise<NamespaceIndex>, index: NamespaceIndex): void {
    if (index.size === 0 && this.#namespaces.get(key) === kept) this.#forget(key);
  }

  #forget(key: string): void {
    this.#namespaces.delete(key);
    this.#stale.delete(key);
  }

  /** Records a memory (only for namespaces already loaded; others load later). */
  async add(owner: string, namespace: string, row: TermsRow): Promise<void> {
    const index = this.#namespaces.get(`${owner}\0${namespace}`);
    if (index) (await index).add(row);
  }

  /** Forgets every namespace loaded (the store's rows were replaced): each is read again. */
  clear(): void {
    this.#namespaces.clear();
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
