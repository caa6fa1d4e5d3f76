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
  /** Cancels the call: once it aborts, the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** An account as the relayer sees it once a delegate key is resolved. */
export interface ResolvedAccount {
  /** The account's id, as a client names it in `x-account-id`. */
  accountId: string;
  /** The owner's address: the memories of every key of the account are stored under it. */
  owner: string;
  /** `false` once the owner deactivated the account; its keys are then refused (403). */
  active: boolean;
  /** Unix milliseconds from which this delegate key is refused (401 `expired_key`); none: never. */
  expiresAt?: number;
  /** The delegate key's label, as its owner named it (absent for the owner's own key). */
  label?: string;
  /** What the delegate key may do; absent (keys of existing accounts): everything. */
  scope?: KeyScope;
}

/** What a delegate key may be allowed to do: read, write, erase, or read the access log. */
export type Operation = "read" | "write" | "erase" | "audit";

/** The limits of a delegate key. A field left out does not limit. */
export interface KeyScope {
  /** The namespaces the key may use; absent: all. */
  namespaces?: string[];
  /** The operations the key may perform; absent: all. */
  operations?: Operation[];
}

/** Finds the account whose `delegate_keys` list a public key (hex) belongs to. */
export interface AccountDirectory {
  /** The implementation's name, reported by `/health` as `chain`. */
  readonly name: string;
  /**
   * `false` when `resolve` is a cheap read of the authoritative record (a local database): the
   * relayer then asks on every request, so a removed key or a deactivated account is refused
   * by the next one. Otherwise (the default) answers are cached for `accountCacheMs`.
   */
  readonly cacheable?: boolean;
  /** `accountIdHint` narrows the lookup; a key outside that account resolves to `null`. */
  resolve(
    publicKey: string,
    accountIdHint?: string,
    options?: CallOptions,
  ): Promise<ResolvedAccount | null>;
  /**
   * The account an owner address owns, or `null`: lets the owner's own key sign the routes
   * open to it (list, get, update, erase, …). A directory without it admits delegate keys only.
   */
  resolveOwner?(owner: string, options?: CallOptions): Promise<ResolvedAccount | null>;
}

/** What a caller may hand a cipher to decrypt with: its own delegate key (`x-delegate-key`). */
export interface DecryptCredentials {
  /** The caller's delegate private key, 64 hex characters; never logged. */
  delegatePrivateKey?: string;
}

/** What `Cipher.encrypt` may carry besides its arguments. */
export interface EncryptOptions extends CallOptions {
  /**
   * The memory the ciphertext belongs to (its id). The ciphertext is then bound to the memory
   * and `erase` can make it unreadable; without it, only to the owner (not erasable).
   */
  memoryId?: string;
}

/** What `Cipher.decrypt` may carry besides its arguments. */
export interface DecryptOptions extends CallOptions {
  /** The caller's key, for ciphers that decrypt with it (Seal). */
  credentials?: DecryptCredentials;
  /**
   * The memory the caller expects (its id). A ciphertext bound to another memory is refused as
   * `forbidden` with `reason: "mismatch"`. Without it, a ciphertext of any memory of the owner's
   * decrypts.
   */
  memoryId?: string;
}

/** Encrypts memory text for an owner; only that owner's keys can read it back. */
export interface Cipher {
  /** The implementation's name, reported by `/health` as `cipher`. */
  readonly name: string;
  /**
   * `true` when the cipher decrypts with keys of its own, whoever calls (the local cipher): the
   * relayer may then keep recalled texts in memory. Absent or `false` when decryption takes the
   * caller's key (Seal): nothing decrypted outlives the call.
   */
  readonly holdsKeys?: boolean;
  /**
   * The ciphertext of `plaintext` for `owner`: randomised (the same text never gives the same
   * bytes), bound to the owner and tamper-evident.
   */
  encrypt(
    owner: string,
    plaintext: Uint8Array<ArrayBuffer>,
    options?: EncryptOptions,
  ): Promise<Uint8Array<ArrayBuffer>>;
  /**
   * The plaintext; a ciphertext of an erased memory, altered, another owner's, or (with
   * `memoryId`) another memory's is refused. `credentials` carries a caller's delegate key for
   * ciphers that need it (Seal). Such a cipher (`holdsKeys` false) refuses a caller it does not
   * let read as `forbidden`; a memory it lets no caller read any more (erased) as `forbidden`
   * with `reason: "erased"`; a ciphertext bound to another owner or memory as `forbidden` with
   * `reason: "mismatch"`: the caller still reads the others. A ciphertext encrypted without a
   * memory id decrypts when none is expected. When one is, a cipher that tells such a
   * ciphertext apart (the local cipher's version 1) decrypts it still; one that cannot (Seal)
   * refuses it as another memory's.
   */
  decrypt(
    owner: string,
    ciphertext: Uint8Array<ArrayBuffer>,
    options?: DecryptOptions,
  ): Promise<Uint8Array<ArrayBuffer>>;
  /**
   * Destroys the keys of an owner's memories: once it resolves, no ciphertext encrypted for
   * them (with `memoryId`) decrypts again, copies made before the erase included. Ids with no
   * key here (never encrypted with an id, or erased already) are ignored. `credentials`: the
   * caller's delegate key, for ciphers whose erase is a transaction the caller signs (Seal).
   * With no id it erases nothing, and refuses as an erase would when what it needs is missing
   * (the caller's key, a sponsor): a check before a larger erase.
   */
  erase(
    owner: string,
    memoryIds: string[],
    options?: CallOptions & { credentials?: DecryptCredentials },
  ): Promise<void>;
}

/** Metadata stored with every blob, so restore can find an owner's memories. */
export interface BlobMeta {
  /** The owner's address. */
  owner: string;
  /** The memory's namespace. */
  namespace: string;
  /** The memory id the blob belongs to (the remember job id). */
  memoryId: string;
  /** Unix milliseconds. */
  createdAt: number;
  /**
   * For client-encrypted (manual) memories: the client's vector sealed by the relayer (an opaque
   * base64url string, AES-GCM under a key derived from the relayer's secret), so restore can
   * re-index it. A store keeps it as given; no store ever holds the vector in clear.
   */
  sealedVector?: string;
  /**
   * The memory's attributes as it was remembered with them (tags, thread, expiry, the memory it
   * replaces, its first time, who stored it), sealed by the relayer (opaque base64url, AES-GCM
   * under a key derived from its secret), so that restore indexes the memory as it was. A store
   * keeps it as given.
   */
  sealedAttributes?: string;
}

/** The metadata `list` reads back: what `put` stored, or a blob's written by an older version. */
export interface ListedBlobMeta extends BlobMeta {
  /**
   * Legacy, read only: the client's vector in clear, as versions up to 0.1.0 stored it with a
   * manual memory (fs JSON `vector`, Walrus `vector` attributes). Restore still re-indexes such a
   * blob; `put` never writes it.
   */
  legacyVector?: number[];
}

/** A blob as `list` finds it: its id and the metadata stored with it. */
export interface BlobEntry {
  /** The id `put` returned for the blob. */
  blobId: string;
  /** The metadata stored with the blob. */
  meta: ListedBlobMeta;
}

/** Content-addressed storage of ciphertext. */
export interface BlobStore {
  /** The implementation's name, reported by `/health` as `blobStore`. */
  readonly name: string;
  /** Stores bytes; the same bytes always give the same id. */
  put(bytes: Uint8Array<ArrayBuffer>, meta: BlobMeta, options?: CallOptions): Promise<string>;
  /** The bytes, or `null` when no such blob exists. */
  get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null>;
  /**
   * Removes a blob: `get` then answers `null` and `list` leaves it out. Where the store keeps
   * copies (replicas, a cache) they go too, as far as the store can reach them. An unknown id
   * is ignored. With `memoryId`, only what that memory stored goes: a blob another memory
   * stored stays, and a store keeping a copy per memory (Walrus) removes only that memory's.
   */
  delete(blobId: string, options?: CallOptions & { memoryId?: string }): Promise<void>;
  /**
   * Drops any copy of a blob the store keeps close (a cache), and keeps the blob: the next `get`
   * reads it from the store again. The reader calls it when a blob's bytes do not decrypt as the
   * memory asked for. Optional: a store keeping no such copy has none. A copy it cannot drop
   * stays: that is no failure.
   */
  forget?(blobId: string, options?: CallOptions): Promise<void>;
  /** An owner's blobs in a namespace, newest first. */
  list(
    owner: string,
    namespace: string,
    options?: CallOptions & { limit?: number },
  ): Promise<BlobEntry[]>;
  /** Releases what the store holds open (a database), once its writes are done; optional. */
  close?(): void | Promise<void>;
}

/**
 * What the index keeps with a memory besides its vector and terms, for list, filters,
 * duplicates, expiry and versions. Nothing in it is readable without the relayer's secret:
 * hashes are keyed, clear attributes are sealed. A store keeps it as given and returns it.
 */
export interface MemoryInfo {
  /** Keyed hashes of the memory's tags; recall and list filter on them. */
  tags?: string[];
  /** The memory's attributes in clear (its tags, its thread), sealed by the relayer: an opaque string. */
  sealed?: string;
  /**
   * A keyed hash of the memory's thread (a conversation or session id): recall ranks a memory
   * together with the memories remembered next to it in the same thread.
   */
  thread?: string;
  /**
   * A keyed hash of the memory's normalised text (and thread): the same text again in the same
   * thread, or again without a thread, is a duplicate.
   */
  digest?: string;
  /** Unix milliseconds after which the memory is never returned, and is erased. */
  expiresAt?: number;
  /** The id of the memory this one replaced (a new version of it). */
  supersedes?: string;
  /** Unix milliseconds when the first version was remembered, for a memory that replaced one. */
  firstCreatedAt?: number;
  /**
   * A client-encrypted memory (manual remember): the relayer cannot read its text, so reads
   * answer it as `null` without trying.
   */
  manual?: true;
}

/** One row of the vector index. */
export interface VectorRow {
  /** The memory's id. */
  id: string;
  /** The owner's address. */
  owner: string;
  /** The memory's namespace. */
  namespace: string;
  /** The blob holding the memory's ciphertext. */
  blobId: string;
  /** The memory's embedding, of the store's `dimensions`. */
  vector: Float32Array | number[];
  /** Unix milliseconds. */
  createdAt: number;
  /** Keyed hashes of the memory's terms, for lexical ranking (absent when unknown). */
  terms?: string[];
  /** What the lifecycle keeps with the memory (absent for rows written without it). */
  info?: MemoryInfo;
}

/** A row `search` found, with its distance to the query vector. */
export interface VectorHit {
  /** The memory's id. */
  id: string;
  /** The blob holding the memory's ciphertext. */
  blobId: string;
  /** Cosine distance: 0 is identical, 2 is opposite. */
  distance: number;
  /** Unix milliseconds. */
  createdAt: number;
}

/** A memory's row without its vector, as `terms` returns it. */
export interface TermsRow {
  /** The memory's id. */
  id: string;
  /** Keyed hashes of the memory's terms; empty when the row has none. */
  terms: string[];
  /** The blob holding the memory's ciphertext. */
  blobId: string;
  /** Unix milliseconds. */
  createdAt: number;
  /** The row's `info`, when it was written with one. */
  info?: MemoryInfo;
}

/** A namespace and how many memories of an owner it holds. */
export interface NamespaceCount {
  /** The namespace. */
  namespace: string;
  /** Its rows in the index. */
  count: number;
  /**
   * When its newest row was stored (Unix milliseconds), where `namespaces` was asked for it
   * (`newest`) and the store can tell it without loading the namespace for recall.
   */
  newest?: number;
}

/** Similarity index over memory vectors, partitioned by owner and namespace. */
export interface VectorStore {
  /** The implementation's name, reported by `/health` as `vectorStore`. */
  readonly name: string;
  /** The size of every vector; the relayer refuses to start with an embedder of another size. */
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
  /**
   * Removes the rows with these ids, terms and info included; ids not in the index are ignored.
   * Once it resolves, `search`, `has`, `terms` and `count` no longer see them.
   */
  delete(ids: string[], options?: CallOptions): Promise<void>;
  /** Rows in the whole index, or only those of an owner (and namespace) when given. */
  count(filter?: { owner?: string; namespace?: string }, options?: CallOptions): Promise<number>;
  /**
   * Every row of a namespace without its vector: terms, blob id, time and info (for the lexical
   * index, which is also the namespace's catalog for list, filters and duplicates); only those
   * among `ids` when given.
   */
  terms(
    owner: string,
    namespace: string,
    options?: CallOptions & { ids?: string[] },
  ): Promise<TermsRow[]>;
  /**
   * For a store with `onChanged`: the ids of a namespace's rows, so that a listener brings what
   * it holds of the namespace up to date (reading only the rows it lacks, with `terms`' `ids`)
   * rather than read every row again. A row never changes under its id: a corrected memory is
   * a new row.
   */
  rowIds?(owner: string, namespace: string, options?: CallOptions): Promise<string[]>;
  /**
   * An owner's namespaces with their memory counts, sorted by name; with `newest`, each with when
   * its newest row was stored, where the store can tell.
   */
  namespaces(
    owner: string,
    options?: CallOptions & { newest?: boolean },
  ): Promise<NamespaceCount[]>;
  /**
   * Every owner's namespaces that hold rows, with their counts, sorted by owner then namespace:
   * what a reindex walks. A store without it cannot be reindexed.
   */
  partitions?(options?: CallOptions): Promise<IndexPartition[]>;
  /**
   * For a store whose rows can be replaced all at once (a reindex switching to a new index):
   * `listener` is called when they are, so that what was read from it (the lexical index and
   * catalog) is read again.
   */
  onReplaced?(listener: () => void): void;
  /**
   * For a store other processes write too (several relayers on one database): `listener` is
   * called with each namespace another writer changed, so that what was read from it (the
   * lexical index and catalog of that namespace) is read again.
   */
  onChanged?(listener: (owner: string, namespace: string) => void): void;
  /**
   * For a store other processes write too: reads the namespace's stored version now, whatever
   * this store trusts, so that another writer's change not heard of yet is told to the
   * `onChanged` listeners before it resolves.
   */
  revalidate?(owner: string, namespace: string, options?: CallOptions): Promise<void>;
  /** Releases what the store holds open. */
  close(): Promise<void>;
}

/** What `Embedder.embed` may carry besides its texts. */
export interface EmbedOptions extends CallOptions {
  /**
   * What the texts are: memories to index (`"document"`, the default) or a recall question
   * (`"query"`). Models trained with prefixes (e5's `query: `/`passage: `, bge's query
   * instruction) embed each kind with its own; other embedders ignore it.
   */
  purpose?: "query" | "document";
}

/** An owner's namespace in the index, and how many rows it holds. */
export interface IndexPartition extends NamespaceCount {
  /** The owner's address. */
  owner: string;
}

/** The embedder an index's vectors come from, as the index records it. */
export interface IndexEmbedding {
  /** The embedder's `model`. */
  model: string;
  /** The embedder's `dimensions`: the size of every vector of the index. */
  dimensions: number;
}

/**
 * The named indexes of one vector store backend, one of them active: what changing the embedder
 * builds on. A reindex fills a second index beside the active one (which keeps serving), then
 * `activate`s it and `remove`s the first. Names are 1 to 40 characters of `[a-z0-9-]`,
 * starting with a letter or digit; until another is activated, the active index is the one the
 * backend has always used (for example `index.kv`), named `"index"`.
 */
export interface VectorIndexSet {
  /** The backend's name, as its stores report it. */
  readonly name: string;
  /** The name of the active index: the one a relayer opens. */
  active(): Promise<string>;
  /** What index `name` was built with; `null` when it does not exist or was never opened. */
  built(name: string): Promise<IndexEmbedding | null>;
  /**
   * Opens index `name` for vectors of `embedding`, creating it if missing; an index built with
   * another embedding is refused (`conflict`). Several indexes of a set may be open at once.
   */
  open(name: string, embedding: IndexEmbedding): Promise<VectorStore>;
  /**
   * Makes `name` the active index in one step that a crash leaves either done or not done
   * (persisted: `active` answers it from then on, across restarts).
   */
  activate(name: string): Promise<void>;
  /**
   * Deletes index `name` with everything it holds; it must be closed. The active index is
   * refused (`conflict`); an index that does not exist is ignored.
   */
  remove(name: string): Promise<void>;
}

/** What a memory is, for the weights of its score. */
export type MemoryKind = "turn" | "fact";

/**
 * The weights of a recall score's parts against the cosine similarity's 1, by kind of memory:
 * the BM25 score relative to the query's best (`lexical`), the re-ranker's (`rerank`) and
 * holding the kind of answer the question asks for (`answer`).
 */
export type FusionWeights = Record<MemoryKind, { lexical: number; rerank: number; answer: number }>;

/** How recall ranks an embedder's vectors, tuned for its model on the benchmark's halves. */
export interface EmbedderRanking {
  /** The fusion weights of its scores (GloVe's, `FUSION_WEIGHTS`, unless given). */
  weights: FusionWeights;
  /**
   * The margin below which recall over facts answers nothing unless `min_score` is set (see
   * `abstainsAt`); absent or 0: never.
   */
  abstainBelow?: number;
}

/** Turns text into vectors of a fixed dimension. */
export interface Embedder {
  /** The implementation's name. */
  readonly name: string;
  /** Identifies the vector recipe; an index built by another model is refused. */
  readonly model: string;
  /** The size of every vector it makes. */
  readonly dimensions: number;
  /** How recall ranks its vectors (GloVe's weights and no abstention unless given). */
  readonly ranking?: EmbedderRanking;
  /** One L2-normalised vector per text, in the order of `texts`. */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/**
 * Re-scores recall's candidates against the query, on their plaintext in memory (nothing of it
 * is stored). The GloVe embedder's package provides one (a word-level soft match).
 */
export interface Reranker {
  /** The implementation's name. */
  readonly name: string;
  /**
   * How well each text answers `query`, in [0, 1], in the order of `texts`; rejects when
   * `options.signal` is aborted.
   */
  rerank(query: string, texts: string[], options?: RerankOptions): Promise<number[]>;
  /** Drops what it kept of `text`, if anything (see `RerankOptions.keep`). */
  forget?(text: string): void;
}

/** Options of {@linkcode Reranker.rerank}. */
export interface RerankOptions extends CallOptions {
  /**
   * The texts of which the re-ranker may keep what it derives, so that a text seen again costs
   * less: those the relayer keeps decrypted itself (its cipher holds its keys), which then tells
   * it through `forget` when it stops keeping one (erased, or pushed out of its text cache).
   */
  keep?: (text: string) => boolean;
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
  /** The implementation's name. */
  readonly name: string;
  /**
   * Wraps the sender's transaction kind into a transaction whose fees the service pays, for the
   * sender to sign; a malformed sender or kind is refused as `malformed` (see `rejected`).
   */
  sponsor(
    transactionKind: Uint8Array<ArrayBuffer>,
    sender: string,
    options?: CallOptions,
  ): Promise<SponsoredTransaction>;
  /**
   * Executes a sponsored transaction signed by its sender, at most once; replays, unknown or
   * expired digests and bad signatures are refused with their rejection reason.
   */
  execute(
    digest: string,
    signature: string,
    options?: CallOptions,
  ): Promise<{ digest: string; effects?: unknown }>;
}

/** The language model behind analyze and ask. */
export interface Llm {
  /** The implementation's name, reported by `/health` as `llm`. */
  readonly name: string;
  /** The model it runs. */
  readonly model: string;
  /**
   * Memorable facts about the user in `text` (preferences, habits, biography, constraints),
   * each a self-contained third-person sentence, possibly none (the relayer keeps the first 20).
   */
  extractFacts(text: string, options?: CallOptions): Promise<string[]>;
  /** Answers `question` from `memories` only (most relevant first). */
  answer(question: string, memories: string[], options?: CallOptions): Promise<string>;
}
