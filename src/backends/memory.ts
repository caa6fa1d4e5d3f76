/**
 * In-memory implementations of the storage interfaces: the reference behaviour the
 * conformance suites check every plugin against, and fast backends for tests.
 */
import type {
  AccountDirectory,
  BlobEntry,
  BlobMeta,
  BlobStore,
  CallOptions,
  IndexPartition,
  NamespaceCount,
  ResolvedAccount,
  TermsRow,
  VectorHit,
  VectorRow,
  VectorStore,
} from "./types.ts";
import { BlobPlaces } from "./blob_place.ts";

/** Cosine distance of two vectors (0 identical, 2 opposite; 1 when either is zero). */
export function cosineDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return cosineWithNorms(a, squaredNorm(a), b, squaredNorm(b));
}

/** The sum of the squares of `a`'s numbers. */
function squaredNorm(a: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * a[i];
  return sum;
}

/** {@link cosineDistance} of `a` and `b` given their squared norms: the same number. */
function cosineWithNorms(a: ArrayLike<number>, na: number, b: ArrayLike<number>, nb: number) {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  if (na === 0 || nb === 0) return 1;
  return 1 - dot / Math.sqrt(na * nb);
}

/**
 * The `k` nearest hits seen, nearest first; equal distances by id, so the order never depends on
 * the order rows were written in.
 */
class NearestHits {
  readonly hits: VectorHit[] = [];
  #k: number;

  constructor(k: number) {
    this.#k = k;
  }

  /** Whether a hit at `distance` with `id` would be kept. */
  takes(distance: number, id: string): boolean {
    return this.hits.length < this.#k || nearer({ distance, id }, this.hits.at(-1)!);
  }

  /** Keeps `hit` in its place (`takes` said so), letting the farthest go past `k`. */
  add(hit: VectorHit): void {
    let at = this.hits.length;
    while (at > 0 && nearer(hit, this.hits[at - 1])) at--;
    this.hits.splice(at, 0, hit);
    if (this.hits.length > this.#k) this.hits.pop();
  }
}

const nearer = (a: Pick<VectorHit, "distance" | "id">, b: VectorHit) =>
  a.distance < b.distance || (a.distance === b.distance && a.id < b.id);

/** Counts each owner's namespaces in a list of rows, sorted by owner, then namespace. */
function countPartitions(rows: { owner: string; namespace: string }[]): IndexPartition[] {
  const counts = new Map<string, IndexPartition>();
  for (const { owner, namespace } of rows) {
    const key = JSON.stringify([owner, namespace]);
    const entry = counts.get(key) ?? { owner, namespace, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  const order = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;
  return [...counts.values()].sort((a, b) =>
    order(a.owner, b.owner) || order(a.namespace, b.namespace)
  );
}

/** A vector index in memory, searched exhaustively by cosine distance. */
export class MemoryVectorStore implements VectorStore {
  readonly name = "memory";
  readonly dimensions: number;
  #rows = new Map<string, VectorRow>();
  /** Each row's squared norm, reckoned once. */
  #norms = new Map<string, number>();

  /** An empty index of vectors of `dimensions` numbers. */
  constructor(dimensions: number) {
    this.dimensions = dimensions;
  }

  upsert(rows: VectorRow[], options?: CallOptions): Promise<void> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    // Kept as copies, so a caller changing its rows afterwards does not change the index.
    for (const row of rows) {
      const vector = Float32Array.from(row.vector);
      this.#norms.set(row.id, squaredNorm(vector));
      this.#rows.set(row.id, {
        ...row,
        vector,
        ...(row.terms && { terms: [...row.terms] }),
        ...(row.info && { info: structuredClone(row.info) }),
      });
    }
    return Promise.resolve();
  }

  search(
    owner: string,
    namespace: string,
    vector: Float32Array | number[],
    k: number,
    options: CallOptions & { ids?: string[] } = {},
  ): Promise<VectorHit[]> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    if (k <= 0) return Promise.resolve([]);
    // With ids, only those rows are looked at.
    const rows = options.ids
      ? [...new Set(options.ids)].flatMap((id) => this.#rows.get(id) ?? [])
      : this.#rows.values();
    const query = squaredNorm(vector);
    const best = new NearestHits(k);
    for (const row of rows) {
      if (row.owner !== owner || row.namespace !== namespace) continue;
      const distance = cosineWithNorms(vector, query, row.vector, this.#norms.get(row.id)!);
      if (!best.takes(distance, row.id)) continue;
      best.add({ id: row.id, blobId: row.blobId, distance, createdAt: row.createdAt });
    }
    return Promise.resolve(best.hits);
  }

  has(ids: string[], options?: CallOptions): Promise<Set<string>> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(new Set(ids.filter((id) => this.#rows.has(id))));
  }

  delete(ids: string[], options?: CallOptions): Promise<void> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    for (const id of ids) {
      this.#rows.delete(id);
      this.#norms.delete(id);
    }
    return Promise.resolve();
  }

  count(
    filter: { owner?: string; namespace?: string } = {},
    options?: CallOptions,
  ): Promise<number> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    let n = 0;
    for (const row of this.#rows.values()) {
      if (filter.owner !== undefined && row.owner !== filter.owner) continue;
      if (filter.namespace !== undefined && row.namespace !== filter.namespace) continue;
      n++;
    }
    return Promise.resolve(n);
  }

  terms(
    owner: string,
    namespace: string,
    options?: CallOptions & { ids?: string[] },
  ): Promise<TermsRow[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const only = options?.ids && new Set(options.ids);
    return Promise.resolve(
      [...this.#rows.values()]
        .filter((r) => r.owner === owner && r.namespace === namespace && (!only || only.has(r.id)))
        .map((r) => ({
          id: r.id,
          terms: r.terms ? [...r.terms] : [],
          blobId: r.blobId,
          createdAt: r.createdAt,
          ...(r.info && { info: structuredClone(r.info) }),
        })),
    );
  }

  rowIds(owner: string, namespace: string, options?: CallOptions): Promise<string[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(
      [...this.#rows.values()]
        .filter((r) => r.owner === owner && r.namespace === namespace)
        .map((r) => r.id),
    );
  }

  namespaces(owner: string, options?: CallOptions): Promise<NamespaceCount[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const rows = [...this.#rows.values()].filter((r) => r.owner === owner);
    return Promise.resolve(
      countPartitions(rows).map(({ namespace, count }) => ({ namespace, count })),
    );
  }

  partitions(options?: CallOptions): Promise<IndexPartition[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(countPartitions([...this.#rows.values()]));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Blobs in memory, by the base64url SHA-256 of their bytes. */
export class MemoryBlobStore implements BlobStore {
  readonly name = "memory";
  #blobs = new Map<string, { bytes: Uint8Array<ArrayBuffer>; meta: BlobMeta }>();

  // deno-lint-ignore require-await
  async put(
    bytes: Uint8Array<ArrayBuffer>,
    meta: BlobMeta,
    options?: CallOptions,
  ): Promise<string> {
    options?.signal?.throwIfAborted();
    const blobId = BlobPlaces.idOf(bytes);
    const held = this.#blobs.get(blobId);
    if (held && held.meta.memoryId !== meta.memoryId) throw BlobPlaces.heldForAnotherMemory();
    if (!held) {
      // Only the fields of BlobMeta are kept, as a persistent store writes them.
      const { owner, namespace, memoryId, createdAt, sealedVector, sealedAttributes } = meta;
      const kept: BlobMeta = { owner, namespace, memoryId, createdAt };
      if (sealedVector !== undefined) kept.sealedVector = sealedVector;
      if (sealedAttributes !== undefined) kept.sealedAttributes = sealedAttributes;
      this.#blobs.set(blobId, { bytes: bytes.slice(), meta: kept });
    }
    return blobId;
  }

  get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(this.#blobs.get(blobId)?.bytes.slice() ?? null);
  }

  delete(blobId: string, options?: CallOptions & { memoryId?: string }): Promise<void> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const held = this.#blobs.get(blobId);
    if (options?.memoryId === undefined || held?.meta.memoryId === options.memoryId) {
      this.#blobs.delete(blobId);
    }
    return Promise.resolve();
  }

  list(
    owner: string,
    namespace: string,
    options: CallOptions & { limit?: number } = {},
  ): Promise<BlobEntry[]> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const entries = [...this.#blobs.entries()]
      .filter(([, b]) => b.meta.owner === owner && b.meta.namespace === namespace)
      .map(([blobId, b]) => ({ blobId, meta: b.meta }))
      .sort((a, b) => b.meta.createdAt - a.meta.createdAt || (a.blobId < b.blobId ? 1 : -1));
    return Promise.resolve(entries.slice(0, options.limit ?? entries.length));
  }
}

/** Accounts held in memory: `add` registers an account and its delegate public keys. */
export class MemoryAccountDirectory implements AccountDirectory {
  readonly name = "memory";
  /**
   * In-process and authoritative: never cached, so a removal applies to the next request;
   * `cacheable` makes it the twin of a directory on a network, whose answers are cached and
   * whose failed look-ups are limited.
   */
  readonly cacheable: boolean;
  #byKey = new Map<string, ResolvedAccount>();
  #byOwner = new Map<string, ResolvedAccount>();

  /** A directory with no accounts; `cacheable` as a directory on a network. */
  constructor(options: { cacheable?: boolean } = {}) {
    this.cacheable = options.cacheable ?? false;
  }

  /** Registers `account` with its delegate public keys (hex). */
  add(account: ResolvedAccount, publicKeys: string[]): void {
    for (const key of publicKeys) this.#byKey.set(key, account);
    this.#byOwner.set(account.owner, account);
  }

  /** Forgets a delegate public key; it no longer resolves. */
  remove(publicKey: string): void {
    this.#byKey.delete(publicKey);
  }

  resolve(
    publicKey: string,
    accountIdHint?: string,
    options?: CallOptions,
  ): Promise<ResolvedAccount | null> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const account = this.#byKey.get(publicKey) ?? null;
    if (account && accountIdHint !== undefined && account.accountId !== accountIdHint) {
      return Promise.resolve(null);
    }
    return Promise.resolve(account ? { ...account } : null);
  }

  resolveOwner(owner: string, options?: CallOptions): Promise<ResolvedAccount | null> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const account = this.#byOwner.get(owner);
    return Promise.resolve(account ? { ...account } : null);
  }
}
