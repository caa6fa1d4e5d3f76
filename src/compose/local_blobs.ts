/**
 * The blob store of a data directory, under `blobs/`: one SQLite file, `blobs/blobs.sqlite` (the
 * default), or the fs store's files (`blobs/objects/…`, `SVC_BLOB_STORE=fs`). A data directory
 * whose blobs an fs store wrote keeps it when `SVC_BLOB_STORE` is not set; asking for the store
 * that does not hold the directory's blobs is refused, since its memories would no longer
 * decrypt. A store that holds no blob yet does not count.
 */
import type { BlobEntry, BlobStore, VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { SqliteBlobStore } from "../../plugins/sqlite_blob/mod.ts";

/** A data directory's blob store, which can also list every blob (to copy them elsewhere). */
export type LocalBlobStore = BlobStore & { entries(): AsyncIterable<BlobEntry> };

/** Which of the two stores hold blobs in `dataDir`. */
export async function heldLocalBlobs(dataDir: string): Promise<{ fs: boolean; sqlite: boolean }> {
  const [fs, sqlite] = await Promise.all([
    hasEntries(`${dataDir}/blobs/objects`),
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

async function hasEntries(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return true;
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Opens the blob store of `dataDir`; see the module documentation. */
export async function openLocalBlobs(
  dataDir: string,
  secret: Uint8Array<ArrayBuffer>,
  choice: { kind: "sqlite" | "fs"; byDefault?: boolean } = { kind: "sqlite", byDefault: true },
  logger?: Logger,
): Promise<LocalBlobStore> {
  const dir = `${dataDir}/blobs`;
  const files = await hasEntries(`${dir}/objects`);
  // The database is looked into only where the fs store is in play: a start on the default
  // opens it once.
  const fsInPlay = choice.kind === "fs" || (choice.byDefault && files);
  const rows = fsInPlay && await SqliteBlobStore.holdsBlobs(`${dir}/blobs.sqlite`);
  const kind = choice.byDefault && files && !rows ? "fs" : choice.kind;
  if (choice.byDefault && files && rows) {
    throw new SvcError(
      "conflict",
      "Cannot open the data directory's blobs: they are in both stores, blobs/objects " +
        "(SVC_BLOB_STORE=fs) and blobs/blobs.sqlite, as a move into SQLite cut short leaves " +
        "them, or an earlier version started on the directory after the move. Finish the move: " +
        "stop the relayer and run `deno task svc migrate-store --to sqlite`.",
    );
  }
  if (kind === "fs" ? rows : files) {
    const found = kind === "fs" ? "blobs/blobs.sqlite (SVC_BLOB_STORE=sqlite)" : "files of " +
      "SVC_BLOB_STORE=fs (blobs/objects)";
    throw new SvcError(
      "conflict",
      `Cannot use SVC_BLOB_STORE=${kind}: the data directory's blobs are in ${found}, which ` +
        "this store would not read. Set SVC_BLOB_STORE to the store that wrote them" +
        (kind === "sqlite"
          ? ", or move them into SQLite: stop the relayer and run " +
            "`deno task svc migrate-store --to sqlite`."
          : "."),
    );
  }
  if (kind === "fs" && choice.byDefault) {
    logger?.warn(
      `${dir}/objects holds the blobs in files, as earlier versions kept them: move them into ` +
        "SQLite (stop the relayer, then run `deno task svc migrate-store --to sqlite`)",
      { dir },
    );
  }
  if (kind === "fs") {
    const { FsBlobStore } = await import("../../plugins/fs_blob/mod.ts");
    return await FsBlobStore.open({ dir });
  }
  const store = await SqliteBlobStore.open({ path: `${dir}/blobs.sqlite`, secret });
  if (store.upgraded > 0) {
    logger?.info("blobs.sqlite no longer names owners or namespaces: sealed them", {
      blobs: store.upgraded,
    });
  }
  return store;
}
