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
  VectorRow,
  VectorStore,
} from "../backends/types.ts";
import { type AttributeSeal, hasAttributes, type MemoryAttributes } from "./attributes.ts";
import type { NamespaceIndex } from "../ranking/lexical_index.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { SealedVectorPlace, VectorSeal } from "./vector_seal.ts";
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
  return withTimeout(timeoutMs, what, (limited) => task({ signal: limited }), signal);
}

export function createRememberPipeline(deps: RememberPipelineDependencies): RememberPipeline {
  const { cipher, blobs, embedder, vectors, hasher, lexicon, vectorSeal, attributeSeal } = deps;
  const now = deps.now ?? Date.now;
  const encrypt: RememberPipeline["encrypt"] = (memory, options = {}) => {
    const plaintext = new TextEncoder().encode(memory.text);
    return backendCall(
      options,
      "Encryption",
      (call) => cipher.encrypt(memory.owner, plaintext, { ...call, memoryId: memory.memoryId }),
    );
  };
  async function attributeInfo(
    memory: MemoryKey,
    { tags, thread, expiresAt, replaces, firstCreatedAt, rememberedBy }: MemoryAttributes,
  ): Promise<MemoryInfo> {
    const info: MemoryInfo = {};
    if (tags?.length) info.tags = await hasher.tags(memory.owner, tags);
    if (thread !== undefined) info.thread = await hasher.thread(memory.owner, thread);
    if (tags?.length || thread !== undefined || rememberedBy) {
      const by = rememberedBy && {
        address: rememberedBy.address,
        label: rememberedBy.label,
        at: rememberedBy.at ?? memory.createdAt,
      };
      info.sealed = await attributeSeal.seal(memory, {
        tags: tags ?? [],
        ...(thread !== undefined && { thread }),
        ...(by && { by }),
      });
    }
    if (expiresAt !== undefined) info.expiresAt = expiresAt;
    if (replaces !== undefined) info.supersedes = replaces;
    if (firstCreatedAt !== undefined) info.firstCreatedAt = firstCreatedAt;
    return info;
  }

  async function info(memory: MemoryKey & MemoryText): Promise<MemoryInfo> {
    const attributes = memory.attributes ?? {};
    const digest = await hasher.digest(memory.owner, memory.text, attributes.thread);
    return { digest, ...await attributeInfo(memory, attributes) };
  }

  async function prepare(
    memories: (MemoryKey & MemoryText)[],
    options: StepOptions = {},
  ): Promise<PreparedText[]> {
    if (memories.length === 0) return [];
    const texts = memories.map((memory) => memory.text);
    const vectors = await backendCall(
      options,
      "Embedding",
      (call) => embedder.embed(texts, call),
    );
    return await Promise.all(memories.map(async (memory, i) => ({
      vector: vectors[i],
      terms: await hasher.hash(memory.owner, memory.text),
      info: await info(memory),
    })));
  }

  async function indexMany(memories: MemoryToIndex[], options: StepOptions = {}): Promise<void> {
    if (memories.length === 0) return;
    const texts = memories.flatMap((memory) =>
      "text" in memory && !("prepared" in memory) && !("vector" in memory) ? [memory] : []
    );
    const prepared = await prepare(texts, options);
    const preparedOf = new Map(texts.map((memory, i) => [memory, prepared[i]]));
    const rows = await Promise.all(memories.map(async (memory): Promise<VectorRow> => {
      const { memoryId: id, owner, namespace, blobId, createdAt } = memory;
      const row = { id, owner, namespace, blobId, createdAt };
      if ("prepared" in memory) return { ...row, ...memory.prepared };
      if ("vector" in memory) {
        const { vector, attributes } = memory;
        const info = attributes ? await attributeInfo(memory, attributes) : {};
        return { ...row, vector, info: { ...info, manual: true } };
      }
      return { ...row, ...preparedOf.get(memory)! };
    }));
    await backendCall(options, "Indexing", (call) => vectors.upsert(rows, call));
    for (const { owner, namespace, vector: _, terms = [], ...row } of rows) {
      await lexicon.add(owner, namespace, { ...row, terms });
    }
  }

  async function duplicates(
    memories: (MemoryKey & MemoryText)[],
    options: { fresh?: boolean } = {},
  ): Promise<TextPlace[]> {
    if (options.fresh) {
      const spaces = new Map(memories.map((m) => [`${m.owner}\0${m.namespace}`, m]));
      for (const { owner, namespace } of spaces.values()) {
        await vectors.revalidate?.(owner, namespace);
      }
    }
    const digests = await Promise.all(
      memories.map((m) => hasher.digest(m.owner, m.text, m.attributes?.thread)),
    );
    const seen = new Map<string, string>();
    // Each namespace's index once: one without memories is read from the store at each ask.
    const indexes = new Map<string, Promise<NamespaceIndex>>();
    const found: TextPlace[] = [];
    for (const [i, { memoryId, owner, namespace }] of memories.entries()) {
      const place = JSON.stringify([owner, namespace, digests[i]]);
      const space = JSON.stringify([owner, namespace]);
      let indexed = indexes.get(space);
      if (!indexed) indexes.set(space, indexed = lexicon.namespace(owner, namespace));
      const index = await indexed;
      const original = seen.get(place) ?? index.duplicateOf(digests[i], now());
      found.push({ original, place });
      if (!seen.has(place)) seen.set(place, original ?? memoryId);
    }
    return found;
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
        if (memory.vector) meta.sealedVector = await vectorSeal.seal(memory, memory.vector);
      }
      const { attributes } = memory;
      if (attributes && hasAttributes(attributes)) {
        meta.sealedAttributes = await attributeSeal.sealForBlob(memory, attributes);
      }
      return await backendCall(options, "Blob upload", (call) => blobs.put(ciphertext, meta, call));
    },

    index(memory, options = {}) {
      return indexMany([memory], options);
    },

    prepare,

    duplicates,

    indexMany,

    openVector(memory, sealedVector) {
      return vectorSeal.open(memory, sealedVector);
    },
  };
}
