/**
 * The remember pipeline, in two steps used by the job worker, restore and manual remember:
 *
 * - **store**: encrypt the text for its owner, then put the ciphertext in the blob store with
 *   its metadata; a memory already encrypted (by `encrypt`, or by the client of a manual
 *   memory) skips encryption, and a manual memory's blob metadata keeps the client's vector
 *   sealed (`vector_seal.ts`), so restore can re-index it (`openVector`) while no blob store
 *   holds it in clear;
 * - **index**: embed the text (unless a vector is given), hash its terms with the owner's key,
 *   make the row's `MemoryInfo` from the text and its attributes (`attributes.ts`), upsert the
 *   vector row (the memory id is the row id, so indexing again replaces it), then add the row
 *   to the namespace's lexical index and catalog.
 *
 * Each step passes its caller's signal to every backend call, and can give each call its own
 * time limit. Indexing again is safe (the write is an upsert by memory id); storing the same
 * ciphertext again gives the same blob (the store is content-addressed), but storing a text
 * again encrypts afresh and so puts a second blob. That is why the worker encrypts first
 * (`encrypt`), keeps the ciphertext with the job, then stores it: each step is then idempotent
 * per memory id. `indexMany` indexes a worker's batch as one step: one embedding call for all
 * its texts and one upsert of all its rows, which the vector store commits together.
 *
 * The index step is `memory_indexer.ts`; the check for texts already remembered,
 * `text_duplicates.ts`.
 *
 * @example
 * ```ts
 * const pipeline = createRememberPipeline({
 *   cipher, blobs, embedder, vectors, hasher, lexicon, vectorSeal,
 * });
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
  MemoryInfo,
  VectorStore,
} from "../backends/types.ts";
import { type AttributeSeal, hasAttributes, type MemoryAttributes } from "./attributes.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { SealedVectorPlace, VectorSeal } from "./vector_seal.ts";
import { backendCall } from "./backend_call.ts";
import { MemoryIndexer } from "./memory_indexer.ts";
import { findDuplicates } from "./text_duplicates.ts";

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
  /** Seals a manual memory's vector for its blob metadata, and opens it for restore. */
  vectorSeal: VectorSeal;
  /** Seals a memory's clear attributes (its tags) in its row. */
  attributeSeal: AttributeSeal;
  /** Unix milliseconds (default `Date.now`): whether a memory a text repeats has expired. */
  now?: () => number;
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
 * A memory to store: plaintext the relayer encrypts, or a client's ciphertext and vector; with
 * the attributes it is remembered with, kept sealed beside its blob for restore.
 */
export type MemoryToStore =
  & MemoryKey
  & { attributes?: MemoryAttributes }
  & (
    | { text: string }
    | { ciphertext: Uint8Array<ArrayBuffer>; vector?: number[] }
  );

/** A memory's text, with the attributes it was remembered with. */
export interface MemoryText {
  text: string;
  attributes?: MemoryAttributes;
}

/**
 * What indexing a text needs before its blob is stored: its vector, its terms' hashes and the
 * row's info.
 */
export interface PreparedText {
  vector: Float32Array;
  /** Keyed hashes of the text's terms. */
  terms: string[];
  info: MemoryInfo;
}

/**
 * A stored memory to index: its text to embed, the vector to index it under, or its text as
 * `prepare` made it ready.
 */
export type MemoryToIndex =
  & MemoryKey
  & { blobId: string }
  & (
    | MemoryText
    // A client-encrypted memory: its attributes, when given, are kept without a digest.
    | { vector: Float32Array | number[]; attributes?: MemoryAttributes }
    | { prepared: PreparedText }
  );

/** Whether a text is a memory already (see `duplicates`). */
export interface TextPlace {
  /** The memory holding the text, when one does. */
  original: string | undefined;
  /** The text's owner, namespace and keyed digest, as one string. */
  place: string;
}

/** Why an update is refused when memory `holder` of its namespace has its new text already. */
export function textHeldBy(holder: string): string {
  return `Cannot update the memory: memory ${holder} of its namespace holds that text already ` +
    "(erase this one instead, or change the text)";
}

/** Options of a step. */
export interface StepOptions extends CallOptions {
  /** A time limit for each backend call of the step; none by default. */
  timeoutMs?: number;
}

export interface RememberPipeline {
  /** Encrypts a memory's text for its owner; resolves to the ciphertext `store` takes. */
  encrypt(
    memory: MemoryKey & { text: string },
    options?: StepOptions,
  ): Promise<Uint8Array<ArrayBuffer>>;
  /** Encrypts (unless already encrypted) and puts the blob; resolves to the blob id. */
  store(memory: MemoryToStore, options?: StepOptions): Promise<string>;
  /** Embeds (unless a vector is given), hashes the terms, writes the vector row and terms. */
  index(memory: MemoryToIndex, options?: StepOptions): Promise<void>;
  /**
   * Embeds texts (in one call) and hashes their terms: the part of indexing that needs no blob
   * id, so that it can run while the blobs upload. Resolves, in order, to what `indexMany`
   * takes as `prepared`.
   */
  prepare(memories: (MemoryKey & MemoryText)[], options?: StepOptions): Promise<PreparedText[]>;
  /**
   * For each memory, the id of a memory already indexed in its namespace with the same text
   * (after normalising case and white space), or of an earlier one of `memories`, as `original`
   * (`undefined` when it is new), and `place`: the same for every memory of that text there.
   * `fresh`: the namespaces' stored versions are read first (see `VectorStore.revalidate`), so
   * that a memory another relayer just indexed counts though its notice is still on its way.
   */
  duplicates(
    memories: (MemoryKey & MemoryText)[],
    options?: { fresh?: boolean },
  ): Promise<TextPlace[]>;
  /**
   * `index` of many memories as one step: their texts embedded in one call, their rows written
   * in one upsert (so the vector store commits them together), then their terms.
   */
  indexMany(memories: MemoryToIndex[], options?: StepOptions): Promise<void>;
  /**
   * The vector `store` sealed in a manual memory's blob metadata, or `null` when it does not
   * open (altered, sealed for another memory, or under another secret).
   */
  openVector(memory: SealedVectorPlace, sealedVector: string): Promise<number[] | null>;
}

export function createRememberPipeline(deps: RememberPipelineDependencies): RememberPipeline {
  const { cipher, blobs, vectorSeal, attributeSeal } = deps;
  const indexer = new MemoryIndexer(deps);
  const now = deps.now ?? Date.now;
  const encrypt: RememberPipeline["encrypt"] = (memory, options = {}) => {
    const plaintext = new TextEncoder().encode(memory.text);
    return backendCall(
      options,
      "Encryption",
      (call) => cipher.encrypt(memory.owner, plaintext, { ...call, memoryId: memory.memoryId }),
    );
  };

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
        if (memory.vector) meta.sealedVector = await vectorSeal.seal(memory, memory.vector);
      }
      const { attributes } = memory;
      if (attributes && hasAttributes(attributes)) {
        meta.sealedAttributes = await attributeSeal.sealForBlob(memory, attributes);
      }
      return await backendCall(options, "Blob upload", (call) => blobs.put(ciphertext, meta, call));
    },

    index(memory, options = {}) {
      return indexer.indexMany([memory], options);
    },

    prepare(memories, options) {
      return indexer.prepare(memories, options);
    },

    duplicates(memories, options) {
      return findDuplicates({ ...deps, now }, memories, options);
    },

    indexMany(memories, options) {
      return indexer.indexMany(memories, options);
    },

    openVector(memory, sealedVector) {
      return vectorSeal.open(memory, sealedVector);
    },
  };
}
