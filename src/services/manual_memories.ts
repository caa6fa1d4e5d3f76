/**
 * Memories a client encrypts and embeds itself: the vectors of its texts in the index's own
 * space, a ciphertext stored with its vector, and a recall by vector that answers without texts.
 */
import type { BlobStore, Embedder, VectorHit, VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { timeOrderedId } from "../ids.ts";
import type { Provenance } from "../pipeline/attributes.ts";
import type { RememberPipeline } from "../pipeline/remember.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import { MAX_MANUAL_BLOB_BYTES } from "../text_limits.ts";
import type { LifecycleRecordStore } from "./lifecycle_records.ts";
import type { MemoryCallOptions } from "./memories.ts";
import type { ManualHit, ManualMemory, ManualRecallResults } from "./memory_answers.ts";

export interface ManualMemoriesDependencies {
  /** Stores and indexes the memories. */
  pipeline: RememberPipeline;
  /** Embeds texts in the index's own space. */
  embedder: Embedder;
  blobs: BlobStore;
  vectors: VectorStore;
  /** Which memories are hidden (expired, replaced); a memory whose namespace was erased leaves it. */
  lexicon: LexicalIndex;
  /** Which namespaces were erased while a memory was being stored. */
  records: LifecycleRecordStore;
  /** Unix milliseconds. */
  now: () => number;
  /** Throws 409 when a namespace is operator-blind (`MemoryServiceDependencies.refuseBlind`). */
  refuseBlind?: (owner: string, namespaces: string[]) => Promise<void>;
}

/** The use-cases of client-encrypted memories: `embed`, `rememberManual`, `recallManual`. */
export function createManualMemories(deps: ManualMemoriesDependencies) {
  const { pipeline, embedder, vectors, lexicon, now } = deps;
  return {
    /**
     * The vectors of `texts` in the index's own space, embedded as memories (`document`) or as
     * recall questions (`query`): for clients that store and search their own ciphertexts.
     */
    async embed(
      texts: string[],
      purpose: "query" | "document",
      options: MemoryCallOptions = {},
    ): Promise<{ vectors: number[][]; model: string; dimensions: number }> {
      const vectors = await embedder.embed(texts, { signal: options.signal, purpose });
      return {
        vectors: vectors.map((vector) => [...vector]),
        model: embedder.model,
        dimensions: embedder.dimensions,
      };
    },

    /**
     * Stores a client-encrypted memory with the client's vector, synchronously: its bytes, or
     * those of a blob the client stored itself (stored again as this memory's).
     */
    async rememberManual(
      owner: string,
      blob: { ciphertext: Uint8Array<ArrayBuffer> } | { blobId: string },
      vector: number[],
      namespace: string,
      rememberedBy?: Provenance,
    ): Promise<ManualMemory> {
      await deps.refuseBlind?.(owner, [namespace]);
      lexicon.assertRoom(await lexicon.namespace(owner, namespace));
      // Not abortable: once begun, a write completes even if its client leaves.
      const memory = { memoryId: timeOrderedId(now()), owner, namespace, createdAt: now() };
      const attributes = rememberedBy && { rememberedBy };
      const ciphertext = "ciphertext" in blob
        ? blob.ciphertext
        : await storedBlob(deps.blobs, blob.blobId);
      const blobId = await pipeline.store({ ...memory, ciphertext, vector, attributes });
      await pipeline.index({ ...memory, blobId, vector, attributes });
      // Its namespace erased meanwhile, its blob found without a row: it goes too (see
      // `Eraser.eraseBlobs`, which removes the row when it comes after this).
      const ids = [memory.memoryId];
      if ((await deps.records.erased(owner, ids)).size > 0) {
        await vectors.delete(ids);
        await lexicon.remove(owner, namespace, ids);
        throw new SvcError(
          "conflict",
          `Cannot remember: namespace ${JSON.stringify(namespace)} was erased while the memory ` +
            "was being stored",
        );
      }
      return { id: memory.memoryId, blob_id: blobId, owner, namespace };
    },

    /** The `limit` memories nearest to the client's vector, nearest first. */
    async recallManual(
      owner: string,
      vector: number[],
      limit: number,
      namespace: string,
      { signal }: MemoryCallOptions = {},
    ): Promise<ManualRecallResults> {
      const [found, index] = await Promise.all([
        vectors.search(owner, namespace, vector, limit, { signal }),
        lexicon.namespace(owner, namespace),
      ]);
      const at = now();
      const hits = found.filter((hit) => !index.hidden(hit.id, at));
      return { results: hits.map(manualHit), total: hits.length };
    },
  };
}

function manualHit(hit: VectorHit): ManualHit {
  return {
    id: hit.id,
    blob_id: hit.blobId,
    distance: hit.distance,
    created_at: new Date(hit.createdAt).toISOString(),
  };
}

/** The bytes of a blob a client stored itself, or a 400 when the store has none by that id. */
async function storedBlob(blobs: BlobStore, blobId: string): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await blobs.get(blobId);
  if (!bytes) {
    throw new SvcError(
      "bad_request",
      `No blob with that blob_id in this relayer's blob store (${blobs.name}): send ` +
        "encrypted_data instead, or store the blob there first",
    );
  }
  // Not stored again past what encrypted_data in a body could carry.
  if (bytes.byteLength > MAX_MANUAL_BLOB_BYTES) {
    throw new SvcError(
      "payload_too_large",
      `Cannot remember the blob: it is larger than a manual memory may be (${MAX_MANUAL_BLOB_BYTES} bytes)`,
    );
  }
  return bytes;
}
