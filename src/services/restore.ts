/**
 * Restore: a namespace's index rebuilt from its blobs, after the index was lost. Each blob the
 * index lacks is read and indexed again with the attributes sealed beside it; a memory recorded
 * erased is not brought back, and its blob is deleted; one whose text the namespace holds already
 * (stored again while the index was lost) is not brought back either, and is erased when the
 * caller may erase.
 */
import type { BlobEntry } from "../backends/types.ts";
import type { MemoryAttributes } from "../pipeline/attributes.ts";
import { blobStates, deleteErasedBlob } from "./erased_blobs.ts";
import type { MemoryCallOptions, MemoryServiceDependencies } from "./memories.ts";
import type { RestoreSummary } from "./memory_answers.ts";

/** What a restore may do besides re-indexing. */
export interface RestoreOptions extends MemoryCallOptions {
  /**
   * Erase the copies of a text the namespace holds again (the caller's key may erase); without
   * it they are skipped and kept.
   */
  eraseCopies?: boolean;
}

/**
 * Re-indexes up to `limit` of the namespace's blobs that are missing from the index, with the
 * attributes sealed beside them (blobs stored before they were kept have none):
 * decrypted and indexed again, or indexed under the sealed vector of a client-encrypted
 * memory (one that does not open is skipped and logged). The blobs of memories recorded
 * erased are deleted, and skipped; a memory whose text another of the namespace holds (as
 * remember sees a duplicate) is skipped, and erased with `eraseCopies` (see `eraseCopy`).
 */
export async function restoreNamespace(
  deps: MemoryServiceDependencies,
  owner: string,
  namespace: string,
  limit: number,
  options: RestoreOptions = {},
): Promise<RestoreSummary> {
  const { blobs, vectors, records, reader, pipeline, logger, hasher, lexicon, queue } = deps;
  const { signal } = options;
  const now = deps.now ?? Date.now;
  /**
   * Whether another memory of the namespace, in the index, holds `text` (stored again while the
   * index was lost).
   */
  const held = async (memoryId: string, text: string, thread: string | undefined) => {
    const index = await lexicon.namespace(owner, namespace);
    const holder = index.duplicateOf(await hasher.digest(owner, text, thread), now());
    return holder !== undefined && holder !== memoryId && present.has(holder);
  };
  /**
   * Erases a copy of a text the namespace holds again, so that an erase of the one held leaves
   * none for restore to find; not while its job is on its way or once it is indexed (an update
   * that keeps its text), and with the caller's leave (`eraseCopies`) only.
   */
  const eraseCopy = async (entry: BlobEntry) => {
    const { memoryId } = entry.meta;
    const job = await queue.get(memoryId);
    if (job?.status === "pending" || job?.status === "running") return;
    if ((await vectors.has([memoryId], { signal })).size > 0) return;
    await deps.eraseBlobs(owner, namespace, [entry], options).catch((error) =>
      logger.warn("cannot erase a copy of a text the namespace holds again", {
        memory_id: memoryId,
        blob_id: entry.blobId,
        error,
      })
    );
  };
  /**
   * Indexes a blob again, as the module documentation says, and schedules its expiry; `false`
   * when it is skipped (its vector does not open, its text is not read or is held already).
   */
  const reindex = async ({ blobId, meta }: BlobEntry): Promise<boolean> => {
    const { memoryId, createdAt } = meta;
    const memory = { memoryId, owner, namespace, createdAt, blobId };
    const attributes = await attributesOf(deps, memory, meta.sealedAttributes);
    if (meta.sealedVector !== undefined || meta.legacyVector) {
      // A legacy vector was written in clear by versions up to 0.1.0; read, never written.
      const vector = meta.sealedVector === undefined
        ? meta.legacyVector!
        : await pipeline.openVector(memory, meta.sealedVector);
      if (vector === null || vector.length !== vectors.dimensions) {
        logger.warn(
          vector === null
            ? "stored vector does not open (altered, moved or another secret)"
            : "stored vector is of another embedder than the index's: its client may " +
              "remember the memory again",
          { memory_id: memoryId, blob_id: blobId },
        );
        return false;
      }
      await pipeline.index({ ...memory, vector, attributes }, { signal });
    } else {
      const text = await reader.read(owner, { id: memoryId, blobId }, options);
      if (text === null) return false;
      if (await held(memoryId, text, attributes?.thread)) {
        if (options.eraseCopies) await eraseCopy({ blobId, meta });
        return false;
      }
      await pipeline.index({ ...memory, text, attributes }, { signal });
    }
    // The sweep erases it once it expires (at once, when it has).
    const expiresAt = attributes?.expiresAt;
    if (expiresAt !== undefined) {
      await records.schedule([{ memoryId, owner, namespace, expiresAt }]);
    }
    present.add(memoryId);
    return true;
  };
  const entries = await blobs.list(owner, namespace, { signal });
  // Present in the index, or erased: a blob put back from a backup stays erased, and one an
  // erase left behind (its store down, the erase cut short) is deleted.
  const { present, erased } = await blobStates(deps, owner, entries, signal);
  let restored = 0, skipped = 0, remaining = 0;
  for (const entry of entries) {
    const { memoryId } = entry.meta;
    if (erased.has(memoryId)) {
      await deleteErasedBlob(blobs, logger, { blobId: entry.blobId, memoryId });
    }
    if (erased.has(memoryId) || present.has(memoryId)) skipped++;
    else if (restored >= limit) remaining++;
    else if (await reindex(entry)) restored++;
    else skipped++;
  }
  const truncated = remaining > 0;
  return { restored, skipped, total: entries.length, remaining, truncated, namespace, owner };
}

/** The attributes sealed beside a blob, or none (none kept, or they do not open: logged). */
async function attributesOf(
  { attributeSeal, logger }: MemoryServiceDependencies,
  place: { memoryId: string; owner: string; namespace: string },
  sealed: string | undefined,
): Promise<MemoryAttributes | undefined> {
  if (sealed === undefined) return undefined;
  const attributes = await attributeSeal.openFromBlob(place, sealed);
  if (!attributes) {
    logger.warn("stored attributes do not open (altered, moved or another secret)", {
      memory_id: place.memoryId,
    });
  }
  return attributes ?? undefined;
}
