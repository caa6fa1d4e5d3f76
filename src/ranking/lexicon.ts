/**
 * The lexical indexes of every owner's namespaces (`NamespaceIndex`), each read from the store the
 * first time it is used and kept up to date as memories are indexed and erased. A namespace
 * without memories is not kept (any name may be asked for, and an erased namespace stays empty):
 * it is read again when next used.
 */
import type { TermsRow } from "../backends/types.ts";
import { NamespaceIndex } from "./lexical_index.ts";

export class LexicalIndex {
  #namespaces = new Map<string, Promise<NamespaceIndex>>();
  #load: (owner: string, namespace: string) => Promise<TermsRow[]>;

  /** `load` reads a namespace's stored terms (once, on first use). */
  constructor(load: (owner: string, namespace: string) => Promise<TermsRow[]>) {
    this.#load = load;
  }

  /** A namespace's index, read from the store the first time it is asked for. */
  namespace(owner: string, namespace: string): Promise<NamespaceIndex> {
    const key = `${owner}\0${namespace}`;
    let index = this.#namespaces.get(key);
    if (!index) {
      const loading = this.#load(owner, namespace).then(NamespaceIndex.of);
      loading.then((loaded) => this.#release(key, loading, loaded), () => {
        if (this.#namespaces.get(key) === loading) this.#namespaces.delete(key);
      });
      this.#namespaces.set(key, index = loading);
    }
    return index;
  }

  /** Lets go of the namespace `key` when `index`, still the one kept, holds no memory. */
  #release(key: string, kept: Promise<NamespaceIndex>, index: NamespaceIndex): void {
    if (index.size === 0 && this.#namespaces.get(key) === kept) this.#namespaces.delete(key);
  }

  /** Records a memory (only for namespaces already loaded; others load later). */
  async add(owner: string, namespace: string, row: TermsRow): Promise<void> {
    const index = this.#namespaces.get(`${owner}\0${namespace}`);
    if (index) (await index).add(row);
  }

  /** Forgets every namespace loaded (the store's rows were replaced): each is read again. */
  clear(): void {
    this.#namespaces.clear();
  }

  /** Forgets one namespace (another writer changed it): it is read again on next use. */
  drop(owner: string, namespace: string): void {
    this.#namespaces.delete(`${owner}\0${namespace}`);
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
