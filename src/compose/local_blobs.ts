/**
 * The blob store of a data directory, under `blobs/`: one SQLite file, `blobs/blobs.sqlite` (the
 * default), or the fs store's files (`blobs/objects/…`, `SVC_BLOB_STORE=fs`). A data directory
 * an fs store wrote keeps it when `SVC_BLOB_STORE` is not set; asking for the store the
 * directory's blobs are not in is refused, since its memories would no longer decrypt.
 */
import type { BlobEntry, BlobStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { pathExists } from "../files.ts";

/** A data directory's blob store, which can also list every blob (to copy them elsewhere). */
export type LocalBlobStore = BlobStore & { entries(): AsyncIterable<BlobEntry> };

/** Opens the blob store of `dataDir`; see the module documentation. */
export async function openLocalBlobs(
  dataDir: string,
  choice: { kind: "sqlite" | "fs"; byDefault?: boolean } = { kind: "sqlite", byDefault: true },
): Promise<LocalBlobStore> {
  const dir = `${dataDir}/blobs`;
  const [files, database] = await Promise.all([
    pathExists(`${dir}/objects`),
    pathExists(`${dir}/blobs.sqlite`),
  ]);
  const kind = choice.byDefault && files && !database ? "fs" : choice.kind;
  const other = kind === "fs" ? database : files;
  if (other) {
    const found = kind === "fs" ? "blobs/blobs.sqlite (SVC_BLOB_STORE=sqlite)" : "files of " +
      "SVC_BLOB_STORE=fs (blobs/objects)";
    throw new SvcError(
      "conflict",
      `Cannot use SVC_BLOB_STORE=${kind}: the data directory's blobs are in ${found}, which ` +
        "this store would not read. Set SVC_BLOB_STORE to the store that wrote them.",
    );
  }
  if (kind === "fs") {
    const { FsBlobStore } = await import("../../plugins/fs_blob/mod.ts");
    return await FsBlobStore.open({ dir });
  }
  const { SqliteBlobStore } = await import("../../plugins/sqlite_blob/mod.ts");
  return await SqliteBlobStore.open({ path: `${dir}/blobs.sqlite` });
}
