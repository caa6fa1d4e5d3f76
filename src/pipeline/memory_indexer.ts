/**
 * The remember pipeline's index step: embed texts, hash their terms with the owner's key, make
 * each row's `MemoryInfo` from its text and attributes, upsert the vector rows, then add them
 * to their namespaces' lexical indexes and catalogs.
 */
import type { Embedder, MemoryInfo, VectorRow, VectorStore } from "../backends/types.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { AttributeSeal, MemoryAttributes } from "./attributes.ts";
import { backendCall } from "./backend_call.ts";
import type {
  MemoryKey,
  MemoryText,
  MemoryToIndex,
  PreparedText,
  StepOptions,
} from "./remember.ts";

/** What indexing reads and writes. */
export interface MemoryIndexerDependencies {
  embedder: Embedder;
  vectors: VectorStore;
  /** Keyed term hashes of memory texts. */
  hasher: TermHasher;
  /** The BM25 index over those hashes, kept in step with the vector index. */
  lexicon: LexicalIndex;
  /** Seals a memory's clear attributes (its tags) in its row. */
  attributeSeal: AttributeSeal;
}

/** Indexes memories: `prepare` what needs no blob id, then `indexMany` writes their rows. */
export class MemoryIndexer {
  readonly #deps: MemoryIndexerDependencies;

  constructor(deps: MemoryIndexerDependencies) {
    this.#deps = deps;
  }

  /** See `RememberPipeline.prepare`. */
  async prepare(
    memories: (MemoryKey & MemoryText)[],
    options: StepOptions = {},
  ): Promise<PreparedText[]> {
    if (memories.length === 0) return [];
    const { embedder, hasher } = this.#deps;
    const texts = memories.map((memory) => memory.text);
    const vectors = await backendCall(
      options,
      "Embedding",
      (call) => embedder.embed(texts, call),
    );
    return await Promise.all(memories.map(async (memory, i) => ({
      vector: vectors[i],
      terms: await hasher.hash(memory.owner, memory.text, {
        at: memory.createdAt,
        thread: memory.attributes?.thread !== undefined,
      }),
      info: await this.#textInfo(memory),
    })));
  }

  /** See `RememberPipeline.indexMany`. */
  async indexMany(memories: MemoryToIndex[], options: StepOptions = {}): Promise<void> {
    if (memories.length === 0) return;
    const texts = memories.flatMap((memory) =>
      "text" in memory && !("prepared" in memory) && !("vector" in memory) ? [memory] : []
    );
    const prepared = await this.prepare(texts, options);
    const preparedOf = new Map(texts.map((memory, i) => [memory, prepared[i]]));
    const rows = await Promise.all(memories.map(async (memory): Promise<VectorRow> => {
      const { memoryId: id, owner, namespace, blobId, createdAt } = memory;
      const row = { id, owner, namespace, blobId, createdAt };
      if ("prepared" in memory) return { ...row, ...memory.prepared };
      if ("vector" in memory) {
        const { vector, attributes } = memory;
        const info = attributes ? await this.#attributeInfo(memory, attributes) : {};
        return { ...row, vector, info: { ...info, manual: true } };
      }
      return { ...row, ...preparedOf.get(memory)! };
    }));
    await backendCall(options, "Indexing", (call) => this.#deps.vectors.upsert(rows, call));
    for (const { owner, namespace, vector: _, terms = [], ...row } of rows) {
      await this.#deps.lexicon.add(owner, namespace, { ...row, terms });
    }
  }

  /** The row's info of a text: its keyed digest, and what its attributes give. */
  async #textInfo(memory: MemoryKey & MemoryText): Promise<MemoryInfo> {
    const attributes = memory.attributes ?? {};
    const digest = await this.#deps.hasher.digest(memory.owner, memory.text, attributes.thread);
    return { digest, ...await this.#attributeInfo(memory, attributes) };
  }

  /** The row's info of a memory's attributes: keyed hashes, the sealed clear values, dates. */
  async #attributeInfo(
    memory: MemoryKey,
    { tags, thread, expiresAt, replaces, firstCreatedAt, rememberedBy }: MemoryAttributes,
  ): Promise<MemoryInfo> {
    const { hasher, attributeSeal } = this.#deps;
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
}
