/**
 * The blob store of a data directory: one SQLite file, `blobs/blobs.sqlite`. The blob files an
 * earlier version's fs store wrote there (`blobs/objects/…`, which name each blob's owner and
 * namespace in clear) are moved into it when it opens, then deleted; a move cut short is
 * finished by the next open.
 */
import type { BlobEntry, BlobStore, Logger, VectorStore } from "@svc/relayer/kit";
import { SqliteBlobStore } from "@svc/sqlite-blob";
import { LegacyBlobFiles } from "./legacy_blob_files.ts";
import { moveBlobFiles, UNMOVABLE } from "./store_copy.ts";

/** A data directory's blob store, which can also list every blob (to copy them elsewhere). */
export type LocalBlobStore = BlobStore & { entries(): AsyncIterable<BlobEntry> };

/**
 * Whether `dataDir` holds blobs: as blob files of an earlier version (`fs`, not moved yet) and in
 * `blobs/blobs.sqlite`.
 */
export async function heldLocalBlobs(dataDir: string): Promise<{ fs: boolean; sqlite: boolean }> {
  const [fs, sqlite] = await Promise.all([
    LegacyBlobFiles.holdsBlobs(`${dataDir}/blobs`),
    SqliteBlobStore.holdsBlobs(`${dataDir}/blobs/blobs.sqlite`),
  ]);
  return { fs, sqlite };
}

/**
 * Warns when `vectors` holds no memory while the data directory's blob store holds some: the
 * index was lost (deleted, left out of a backup, or `SVC_VECTOR_STORE=memory` restarted), and no
 * memory is recalled until each namespace is restored.
 */
export async function warnOfLostIndex(
  dataDir: string,
  vectors: VectorStore,
  logger: Logger,
): Promise<void> {
  // The index's count first: a start with memories looks into no blob store again.
  if (await vectors.count() > 0) return;
  const held = await heldLocalBlobs(dataDir);
  if (!held.fs && !held.sqlite) return;
  logger.warn(
    "the vector index holds no memory while the blob store holds some: none is recalled until " +
      "its namespace is restored (POST /api/restore, `svc restore --namespace NAME` or the " +
      "svc_restore tool, with a key of its account)",
    { data_dir: dataDir },
  );
}

/**
 * Opens the blob store of `dataDir`, moving the blob files of an earlier version into it (a log
 * line before and after, with their counts); see the module documentation.
 */
export async function openLocalBlobs(
  dataDir: string,
  secret: Uint8Array<ArrayBuffer>,
  logger?: Logger,
): Promise<LocalBlobStore> {
  const dir = `${dataDir}/blobs`;
  const store = await SqliteBlobStore.open({ path: `${dir}/blobs.sqlite`, secret });
  if (store.upgraded > 0) {
    logger?.info("blobs.sqlite no longer names owners or namespaces: sealed them", {
      blobs: store.upgraded,
    });
  }
  const files = await LegacyBlobFiles.find(dir);
  if (!files) return store;
  try {
    logger?.info("moving the blob files of an earlier version (blobs/objects) into blobs.sqlite");
    const { moved, unmovable } = await moveBlobFiles(files, store, secret);
    logger?.info("moved the blob files into blobs.sqlite and deleted them", { blobs: moved });
    if (unmovable.length > 0) {
      logger?.warn(`blob files that cannot be moved stay in blobs/ (${UNMOVABLE})`, {
        blobs: unmovable.length,
        blob_ids: unmovable.slice(0, 10),
      });
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
