/**
 * The blobs of erased memories, deleted by erase and by restore (what an erase left behind), and
 * what erase and restore tell of a namespace's blobs: which the index holds, which were erased.
 */
import type { BlobEntry, BlobStore, VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { LifecycleRecordStore } from "./lifecycle_records.ts";

/**
 * Deletes an erased memory's blob. One its store cannot delete now (down) stays, logged: its key
 * is gone, so it is unreadable, and the next restore of its namespace deletes it. With `retried`
 * (an erase, which its sweep finishes) only a store that never deletes (`not_implemented`: Walrus
 * without its System object) is passed over; another failure throws, for the sweep to try again.
 */
export async function deleteErasedBlob(
  blobs: BlobStore,
  logger: Logger,
  { blobId, memoryId }: { blobId: string; memoryId: string },
  { retried = false } = {},
): Promise<void> {
  await blobs.delete(blobId, { memoryId }).catch((error) => {
    if (retried && !(error instanceof SvcError && error.code === "not_implemented")) throw error;
    logger.warn("cannot delete an erased memory's blob", {
      memory_id: memoryId,
      blob_id: blobId,
      error,
    });
  });
}

/** Of the memories of `entries`, those the index holds and those recorded erased. */
export async function blobStates(
  { vectors, records }: { vectors: VectorStore; records: LifecycleRecordStore },
  owner: string,
  entries: BlobEntry[],
  signal?: AbortSignal,
): Promise<{ present: Set<string>; erased: Set<string> }> {
  const present = new Set<string>();
  const erased = new Set<string>();
  for (let i = 0; i < entries.length; i += 500) {
    const ids = entries.slice(i, i + 500).map(({ meta }) => meta.memoryId);
    for (const id of await vectors.has(ids, { signal })) present.add(id);
    for (const id of await records.erased(owner, ids)) erased.add(id);
  }
  return { present, erased };
}
