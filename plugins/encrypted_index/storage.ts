/**
 * What the encrypted index needs from its storage: a few small records and sealed blocks,
 * changed only by atomic commits. Everything it is given is already sealed or opaque (keyed
 * hashes, random block ids, memory ids), so a storage never sees a vector, a term or a name.
 * `sqlite_storage.ts` keeps it in a SQLite file or in memory; the PostgreSQL plugin's
 * `PgBlockStorage` in a database several relayers share.
 */
import type { NamespaceRef } from "./keys.ts";

export type { NamespaceRef };

/** What the index records about itself. */
export interface IndexMeta {
  /** The format of the index. */
  format: number;
  /** The embedder the vectors came from, and their size. */
  model: string;
  /** The size of every vector. */
  dimensions: number;
  /** Tells whether a secret is the one the index was written under. */
  keyCheck: string;
}

/** A namespace's header. */
export interface NamespaceHeader {
  /** The owner and namespace, sealed under the namespace's key. */
  name: Uint8Array<ArrayBuffer>;
  /** Its rows. */
  count: number;
}

/** A header as stored, with its version (which changes with every commit to the namespace). */
export interface StoredHeader {
  /** Where the namespace is filed. */
  ref: NamespaceRef;
  /** The header itself. */
  header: NamespaceHeader;
  /** The namespace's version. */
  version: string;
}

/** A stored block: a random id and sealed bytes. */
export interface StoredBlock {
  /** The block's random id. */
  id: string;
  /** The sealed bytes. */
  bytes: Uint8Array<ArrayBuffer>;
}

/** A block as `BlockStorage.blocks` lists it: its bytes are `null` for one the reader holds. */
export interface ListedBlock {
  /** The block's random id. */
  id: string;
  /** The sealed bytes, or `null` for a block the reader holds. */
  bytes: Uint8Array<ArrayBuffer> | null;
}

/** One atomic change of the index. */
export interface IndexChange {
  /** The versions the namespaces must still be at (`null`: absent), else nothing is applied. */
  expect: { ref: NamespaceRef; version: string | null }[];
  /** New headers; a count of 0 removes the namespace's header. */
  headers: { ref: NamespaceRef; header: NamespaceHeader }[];
  /** Blocks to add. */
  putBlocks: { ns: string; block: StoredBlock }[];
  /** Blocks to remove, with their sealed size. */
  deleteBlocks: { ns: string; id: string; size: number }[];
  /** Where memories now are. */
  putIds: { id: string; ref: NamespaceRef }[];
  /** Memories no longer in the index. */
  deleteIds: string[];
}

/** What a shared storage tells a store about commits of other writers. */
export interface StorageWatcher {
  /** Another writer committed to a namespace, which is now at `version`. */
  changed(ref: NamespaceRef, version: string): void;
  /** Commits may have been missed (notifications were interrupted): trust nothing held. */
  lost(): void;
}

/** The storage of the encrypted index. */
export interface BlockStorage {
  /** The index's record of itself, `null` for a new index. */
  meta(): Promise<IndexMeta | null>;
  /** Records `meta` for a new index. */
  setMeta(meta: IndexMeta): Promise<void>;
  /** A small clear note kept with the index (for example how far an import got). */
  note(name: string): Promise<string | null>;
  /** Writes a note. */
  setNote(name: string, value: string): Promise<void>;
  /** A namespace's header. */
  header(ref: NamespaceRef): Promise<StoredHeader | null>;
  /** Every namespace's header, or one owner's (by its keyed hash). */
  headers(owner?: string): Promise<StoredHeader[]>;
  /**
   * The committed blocks of a namespace whose header is at `version`, as they are read: never
   * a block of a change whose final commit did not land. A block whose id is in `held` may
   * come without its bytes (`null`): the reader has it, and a stored block never changes (the
   * Deno KV storage still reads it, PostgreSQL's does not).
   * Leftovers of changes that can no longer commit may be removed meanwhile.
   */
  blocks(
    ref: NamespaceRef,
    version: string,
    held?: ReadonlySet<string>,
  ): AsyncIterable<ListedBlock>;
  /** Where each of `ids` is, for those in the index. */
  locate(ids: string[]): Promise<Map<string, NamespaceRef>>;
  /**
   * Applies `change` as one atomic commit; resolves to the namespaces' new version, or `null`
   * (nothing applied) when a namespace is not at its expected version.
   */
  commit(change: IndexChange): Promise<string | null>;
  /**
   * For a storage other processes write too, when it can tell of their commits: calls
   * `watcher` until the returned function is called or the storage closes. Versions compare
   * as strings (a later commit's is greater).
   */
  watch?(watcher: StorageWatcher): () => void;
  /** Closes the storage. */
  close(): void;
}
