/**
 * The remember pipeline, in two steps used by the job worker, restore and manual remember:
 *
 * - **store**: encrypt the text for its owner, then put the ciphertext in the blob store with
 *   its metadata; a client-encrypted (manual) memory skips encryption and its blob metadata
 *   keeps the client's vector, so restore can re-index it; so does a ciphertext `encrypt`
 *   made earlier (a job resumed after a crash puts the same bytes, and so the same blob);
 * - **index**: embed the text (unless a vector is given), hash its terms with the owner's key,
 *   upsert the vector row (the memory id is the row id, so indexing again replaces it), then
 *   add the terms to the lexical index.
 *
 * Each step passes its caller's signal to every backend call, and can give each call its own
 * time limit. Indexing again is safe (the write is an upsert by memory id); storing a text
 * again encrypts afresh and so puts a second blob, which is why the worker checkpoints the
 * ciphertext before the upload and the blob id after it.
 *
 * @example
 * ```ts
 * const pipeline = createRememberPipeline({ cipher, blobs, embedder, vectors, hasher, lexicon });
 * const memory = { memoryId: id, owner, namespace, createdAt: Date.now() };
 * const blobId = await pipeline.store({ ...memory, text }, { timeoutMs: 30_000 });
 * await pipeline.index({ ...memory, blobId, text }, { timeoutMs: 30_000 });
 * ```
 */
import type {
  BlobMeta,
  BlobStore,
  CallOptions,
  Cipher,
  Embedder,
  VectorRow,
  VectorStore,
} from "../backends/types.ts";
import type { LexicalIndex } from "../ranking/lexical_index.ts";
import type { TermHasher } from "../ranking/terms.ts";
import { withTimeout } from "./with_timeout.ts";

/** The backends the two steps write to. */
export interface RememberPipelineDependencies {
  cipher: Cipher;
  blobs: BlobStore;
  embedder: Embedder;
  vectors: VectorStore;
  /** Keyed term hashes of memory texts. */
  hasher: TermHasher;
  /** The BM25 index over those hashes, kept in step with the vector index. */
  lexicon: LexicalIndex;
}

/** Which memory a step works on. */
export interface MemoryKey {
  /** The memory id: the remember job's id, or a fresh id for a manual memory. */
  memoryId: string;
  owner: string;
  namespace: string;
  /** Unix milliseconds. */
  createdAt: number;
}

/**
 * A memory to store: plaintext the relayer encrypts, a client's ciphertext and vector, or a
 * ciphertext `encrypt` made.
 */
export type MemoryToStore =
  & MemoryKey
  & (
    | { text: string }
    | { ciphertext: Uint8Array<ArrayBuffer>; vector?: number[] }
  );

/** A stored memory to index: its text to embed, or the vector to index it under. */
export type MemoryToIndex =
  & MemoryKey
  & { blobId: string }
  & ({ text: string } | { vector: Float32Array | number[] });

/** Options of a step. */
export interface StepOptions extends CallOptions {
  /** A time limit for each backend call of the step; none by default. */
  timeoutMs?: number;
}

export interface RememberPipeline {
  /** Encrypts a memory's text for its owner (what `store` does first with a text). */
  encrypt(
    memory: MemoryKey & { text: string },
    options?: StepOptions,
  ): Promise<Uint8Array<ArrayBuffer>>;
  /** Encrypts (unless already encrypted) and puts the blob; resolves to the blob id. */
  store(memory: MemoryToStore, options?: StepOptions): Promise<string>;
  /** Embeds (unless a vector is given), hashes the terms, writes the vector row and terms. */
  index(memory: MemoryToIndex, options?: StepOptions): Promise<void>;
}

/**
 * Runs one backend call with the step's signal and, when the step has a time limit, a signal
 * that fires when it runs out (the call then rejects with "<what> timed out after <n> ms").
 */
function backendCall<T>(
  options: StepOptions,
  what: string,
  task: (options: CallOptions) => Promise<T>,
): Promise<T> {
  const { signal, timeoutMs } = options;
  if (timeoutMs === undefined) return task({ signal });
  return withTimeout(
    timeoutMs,
    what,
    (timeout) => task({ signal: signal ? AbortSignal.any([signal, timeout]) : timeout }),
  );
}

export function createRememberPipeline(deps: RememberPipelineDependencies): RememberPipeline {
  const { cipher, blobs, embedder, vectors, hasher, lexicon } = deps;
  function encrypt(memory: MemoryKey & { text: string }, options: StepOptions = {}) {
    const plaintext = new TextEncoder().encode(memory.text);
    return backendCall(
      options,
      "Encryption",
      (call) => cipher.encrypt(memory.owner, plaintext, call),
    );
  }

  return {
    encrypt,

    async store(memory, options = {}) {
      const { memoryId, owner, namespace, createdAt } = memory;
      const meta: BlobMeta = { owner, namespace, memoryId, createdAt };
      let ciphertext: Uint8Array<ArrayBuffer>;
      if ("text" in memory) {
        ciphertext = await encrypt(memory, options);
      } else {
        ciphertext = memory.ciphertext;
        if (memory.vector) meta.vector = memory.vector;
      }
      return await backendCall(options, "Blob upload", (call) => blobs.put(ciphertext, meta, call));
    },

    async index(memory, options = {}) {
      const { memoryId, owner, namespace, blobId, createdAt } = memory;
      let vector: Float32Array | number[];
      let terms: string[] | undefined;
      if ("text" in memory) {
        [vector] = await backendCall(
          options,
          "Embedding",
          (call) => embedder.embed([memory.text], call),
        );
        terms = await hasher.hash(owner, memory.text);
      } else {
        vector = memory.vector;
      }
      const row: VectorRow = { id: memoryId, owner, namespace, blobId, vector, createdAt };
      if (terms) row.terms = terms;
      await backendCall(options, "Indexing", (call) => vectors.upsert([row], call));
      if (terms) await lexicon.add(owner, namespace, memoryId, terms);
    },
  };
}
