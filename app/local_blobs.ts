/**
 * The blob store of a data directory: one SQLite file, `blobs/blobs.sqlite`. The blob files an
 * earlier version's fs store wrote there (`blobs/objects/…`, which name each blob's owner and
 * namespace in clear) are moved into it by the upgrades at start, then deleted.
 */
import type { BlobEntry, BlobStore, Logger, VectorStore } from "@svc/relayer/kit";
import { SqliteBlobStore } from "@svc/sqlite-blob";
import { LegacyBlobFiles } from "@svc/upgrades";

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
 * Opens the blob store of `dataDir`. The blob files of an earlier version are moved into it by
 * the upgrades (`@svc/upgrades`), before.
 */
export async function openLocalBlobs(
  dataDir: string,
  secret: Uint8Array<ArrayBuffer>,
  logger?: Logger,
): Promise<LocalBlobStore> {
  const store = await SqliteBlobStore.open({ path: `${dataDir}/blobs/blobs.sqlite`, secret });
  if (store.upgraded > 0) {
    logger?.info("blobs.sqlite no longer names owners or namespaces: sealed them", {
      blobs: store.upgraded,
    });
  }
  return store;
}
