/** The blobs of erased memories, deleted by erase and by restore (what an erase left behind). */
import type { BlobStore } from "../backends/types.ts";
import type { Logger } from "../log.ts";

/**
 * Deletes an erased memory's blob. One its store cannot delete now (down) stays, logged: its key
 * is gone, so it is unreadable, and the next restore of its namespace deletes it.
 */
export async function deleteErasedBlob(
  blobs: BlobStore,
  logger: Logger,
  { blobId, memoryId }: { blobId: string; memoryId: string },
): Promise<void> {
  await blobs.delete(blobId, { memoryId }).catch((error) =>
    logger.warn("cannot delete an erased memory's blob", {
      memory_id: memoryId,
      blob_id: blobId,
      error,
    })
  );
}
