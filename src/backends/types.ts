/**
 * The plugin interfaces of svc. Plain data in and out, every method async and taking
 * optional `CallOptions` with an `AbortSignal`. The vector store, blob store and account
 * directory have in-memory twins in `memory.ts`; the cipher, embedder, re-ranker and language
 * model in `memory_cipher.ts`, `memory_embedder.ts`, `memory_reranker.ts` and `memory_llm.ts`.
 * Every interface has a conformance suite in `src/testing/`, and the testing module exports
 * the twins and the suites together.
 */

/** Options every backend call accepts. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** An account as the relayer sees it once a delegate key is resolved. */
export interface ResolvedAccount {
  accountId: string;
  owner: string;
  active: boolean;
}

/** Finds the account whose `delegate_keys` list a public key (hex) belongs to. */
export interface AccountDirectory {
  readonly name: string;
  /** `accountIdHint` narrows the lookup; a key outside that account resolves to `null`. */
  resolve(
    publicKey: string,
    accountIdHint?: string,
    options?: CallOptions,
  ): Promise<ResolvedAccount | null>;
}

/** What a caller may hand a cipher to decrypt with: its own delegate key (`x-delegate-key`). */
export interface DecryptCredentials {
  /** The caller's delegate private key, 64 hex characters; never logged. */
  delegatePrivateKey?: string;
}

/** Encrypts memory text for an owner; only that owner's keys can read it back. */
export interface Cipher {
  readonly name: string;
  encrypt(
    owner: string,
    plaintext: Uint8Array<ArrayBuffer>,
    options?: CallOptions,
  ): Promise<Uint8Array<ArrayBuffer>>;
  /** `credentials` carries a caller's delegate key for ciphers that need it (Seal). */
  decrypt(
    owner: string,
    ciphertext: Uint8Array<ArrayBuffer>,
    options?: CallOptions & { credentials?: DecryptCredentials },
  ): Promise<Uint8Array<ArrayBuffer>>;
}

/** Metadata stored with every blob, so restore can find an owner's memories. */
export interface BlobMeta {
  owner: string;
  namespace: string;
  /** The memory id the blob belongs to (the remember job id). */
  memoryId: string;
  /** Unix milliseconds. */
  createdAt: number;
  /** For client-encrypted (manual) memories: the client's vector, so restore can re-index. */
  vector?: number[];
}

export interface BlobEntry {
  blobId: string;
  meta: BlobMeta;
}

/** Content-addressed storage of ciphertext. */
export interface BlobStore {
  readonly name: string;
  /** Stores bytes; the same bytes always give the same id. */
  put(bytes: Uint8Array<ArrayBuffer>, meta: BlobMeta, options?: CallOptions): Promise<string>;
  /** The bytes, or `null` when no such blob exists. */
  get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null>;
  /** An owner's blobs in a namespace, newest first. */
  list(
    owner: string,
    namespace: string,
    options?: CallOptions & { limit?: number },
  ): Promise<BlobEntry[]>;
}

/** One row of the vector index. */
export interface VectorRow {
  id: string;
  owner: string;
  namespace: string;
  blobId: string;
  vector: Float32Array | number[];
  /** Unix milliseconds. */
  createdAt: number;
  /** Keyed hashes of the memory's terms, for lexical ranking (absent when unknown). */
  terms?: string[];
}

export interface VectorHit {
  id: string;
  blobId: string;
  /** Cosine distance: 0 is identical, 2 is opposite. */
  distance: number;
  createdAt: number;
}

export interface TermsRow {
  id: string;
  terms: string[];
}

export interface NamespaceCount {
  namespace: string;
  count: number;
}

/** Similarity index over memory vectors, partitioned by owner and namespace. */
export interface VectorStore {
  readonly name: string;
  readonly dimensions: number;
  /** Inserts or replaces rows by id. */
  upsert(rows: VectorRow[], options?: CallOptions): Promise<void>;
  /** The `k` nearest rows of a namespace, nearest first; only among `ids` when given. */
  search(
    owner: string,
    namespace: string,
    vector: Float32Array | number[],
    k: number,
    options?: CallOptions & { ids?: string[] },
  ): Promise<VectorHit[]>;
  /** The subset of `ids` present in the index. */
  has(ids: string[], options?: CallOptions): Promise<Set<string>>;
  delete(ids: string[], options?: CallOptions): Promise<void>;
  /** Rows in the whole index, or only those of an owner (and namespace) when given. */
  count(filter?: { owner?: string; namespace?: string }, options?: CallOptions): Promise<number>;
  /** Every memory's stored terms in a namespace (for the lexical index). */
  terms(owner: string, namespace: string, options?: CallOptions): Promise<TermsRow[]>;
  /** An owner's namespaces with their memory counts, sorted by name. */
  namespaces(owner: string, options?: CallOptions): Promise<NamespaceCount[]>;
  close(): Promise<void>;
}

/** Turns text into vectors of a fixed dimension. */
export interface Embedder {
  readonly name: string;
  /** Identifies the vector recipe; an index built by another model is refused. */
  readonly model: string;
  readonly dimensions: number;
  embed(texts: string[], options?: CallOptions): Promise<Float32Array[]>;
}

/**
 * Re-scores recall's candidates against the query, on their plaintext in memory (nothing of it
 * is stored). The GloVe embedder's package provides one (a word-level soft match).
 */
export interface Reranker {
  readonly name: string;
  /**
   * How well each text answers `query`, in [0, 1], in the order of `texts`; rejects when
   * `options.signal` is aborted.
   */
  rerank(query: string, texts: string[], options?: CallOptions): Promise<number[]>;
}

/** A sponsored transaction, built for the sender to sign. */
export interface SponsoredTransaction {
  /** The transaction bytes. */
  bytes: Uint8Array<ArrayBuffer>;
  /** What the sender signs, to be passed back to `execute`. */
  digest: string;
}

/** Builds and executes transactions whose fees the service pays (DESIGN §5.7). */
export interface Sponsor {
  readonly name: string;
  sponsor(
    transactionKind: Uint8Array<ArrayBuffer>,
    sender: string,
    options?: CallOptions,
  ): Promise<SponsoredTransaction>;
  execute(
    digest: string,
    signature: string,
    options?: CallOptions,
  ): Promise<{ digest: string; effects?: unknown }>;
}

/** The language model behind analyze and ask. */
export interface Llm {
  readonly name: string;
  readonly model: string;
  /**
   * Memorable facts about the user in `text` (preferences, habits, biography, constraints),
   * each a self-contained third-person sentence; at most 20, possibly none.
   */
  extractFacts(text: string, options?: CallOptions): Promise<string[]>;
  /** Answers `question` from `memories` only (most relevant first). */
  answer(question: string, memories: string[], options?: CallOptions): Promise<string>;
}
