/**
 * Fills a namespace through the backends themselves (encrypt, blob, embed, keyed terms, index),
 * 500 texts at a time, rather than through the job queue: how the in-process benchmarks set up a
 * namespace of a given size quickly.
 */
import type { BlobStore, Cipher, Embedder, VectorStore } from "../src/backends/types.ts";
import { timeOrderedId } from "../src/ids.ts";
import type { TermHasher } from "../src/ranking/terms.ts";

/** The backends a namespace is loaded through. */
export interface LoadBackends {
  embedder: Embedder;
  cipher: Cipher;
  blobs: BlobStore;
  vectors: VectorStore;
  hasher: TermHasher;
}

/** Stores and indexes `texts` as `owner`'s memories in `namespace`. */
export async function loadThroughBackends(
  { embedder, cipher, blobs, vectors, hasher }: LoadBackends,
  owner: string,
  namespace: string,
  texts: string[],
): Promise<void> {
  for (let i = 0; i < texts.length; i += 500) {
    const batch = texts.slice(i, i + 500);
    const embedded = await embedder.embed(batch);
    await vectors.upsert(
      await Promise.all(batch.map(async (text, j) => {
        const id = timeOrderedId();
        const createdAt = Date.now();
        const plaintext = new TextEncoder().encode(text);
        const meta = { owner, namespace, memoryId: id, createdAt };
        const blobId = await blobs.put(await cipher.encrypt(owner, plaintext), meta);
        const terms = await hasher.hash(owner, text);
        return { id, owner, namespace, blobId, vector: embedded[j], createdAt, terms };
      })),
    );
  }
}
