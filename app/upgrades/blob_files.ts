/**
 * The blob files of earlier versions (`blobs/objects`, see `legacy_blob_files.ts`) moved into the
 * data directory's SQLite store, `blobs/blobs.sqlite`, ids kept; a legacy clear vector in a blob's
 * metadata is sealed on the way.
 */
import {
  type BlobMeta,
  BlobPlaces,
  type BlobStore,
  type ListedBlobMeta,
  SvcError,
} from "@svc/relayer/kit";
import { VectorSeal } from "@svc/relayer/stored";
import { SqliteBlobStore } from "@svc/sqlite-blob";
import { batches, count, type Tell } from "@svc/util/batches";
import { type LegacyBlob, LegacyBlobFiles } from "./legacy_blob_files.ts";

/** A blob's metadata as stored anew: a legacy clear vector sealed with `seal`. */
export async function keptMeta(seal: VectorSeal, meta: ListedBlobMeta): Promise<BlobMeta> {
  const { legacyVector, ...kept } = meta;
  if (legacyVector && kept.sealedVector === undefined && kept.memoryId !== undefined) {
    const { memoryId, owner, namespace } = kept;
    kept.sealedVector = await seal.seal({ memoryId, owner, namespace }, legacyVector);
  }
  return kept;
}

/** Why a blob file cannot be moved, as logs and the CLI say it. */
export const UNMOVABLE = "bytes missing or not matching their id, metadata that cannot be " +
  "read, or bytes another memory holds; their memories cannot be read";

/** What {@link moveBlobFiles} did: the blobs moved, and the ids of those it could not move. */
export interface BlobFilesMoved {
  moved: number;
  unmovable: string[];
}

/**
 * Puts one blob file into `target`; `false` when it cannot be moved: its bytes are missing or do
 * not match its id, its metadata cannot be read, or the store holds its bytes for another memory.
 */
async function putBlobFile(
  files: LegacyBlobFiles,
  blob: LegacyBlob,
  target: BlobStore,
  seal: VectorSeal,
): Promise<boolean> {
  const bytes = blob.meta && await files.get(blob.blobId);
  if (!bytes || BlobPlaces.idOf(bytes) !== blob.blobId) return false;
  try {
    await target.put(bytes, await keptMeta(seal, blob.meta!));
    return true;
  } catch (error) {
    if (error instanceof SvcError && error.code === "conflict") return false;
    throw error;
  }
}

/**
 * Moves the blob files of earlier versions into `target`, the data directory's SQLite store, ids
 * kept: each blob's files are deleted once the store holds it, so that the move needs little
 * room and a move cut short is finished by the next. A blob that cannot be moved (see
 * `putBlobFile`) keeps its files, and its id is listed. The folders go once nothing is left.
 * With `tell`, the files are counted first, to tell the progress against.
 */
export async function moveBlobFiles(
  files: LegacyBlobFiles,
  target: BlobStore,
  secret: Uint8Array<ArrayBuffer>,
  tell?: Tell,
): Promise<BlobFilesMoved> {
  const seal = await VectorSeal.fromSecret(secret);
  const total = tell ? await count(files.entries()) : 0;
  const result: BlobFilesMoved = { moved: 0, unmovable: [] };
  const move = async (blob: LegacyBlob) => {
    if (!await putBlobFile(files, blob, target, seal)) {
      return void result.unmovable.push(blob.blobId);
    }
    await files.removeBlob(blob);
    result.moved++;
  };
  for await (const batch of batches(files.entries(), 8)) {
    // Every move of the batch ends before a failure is thrown: none is left writing.
    const failed = (await Promise.allSettled(batch.map(move))).find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    tell?.(result.moved + result.unmovable.length, total);
  }
  if (result.unmovable.length === 0) await files.remove();
  return result;
}

/**
 * {@link moveBlobFiles} for the files in `dataDir` (`blobs/objects`), into `blobs/blobs.sqlite`
 * (the relayer stopped; the caller holds the data directory's `index.lock`). Resolves to what it
 * moved (none when an earlier run had moved them all), `null` when there are no blob files.
 */
export async function moveBlobsToSqlite(
  dataDir: string,
  secret: Uint8Array<ArrayBuffer>,
  tell?: Tell,
): Promise<BlobFilesMoved | null> {
  const dir = `${dataDir}/blobs`;
  const files = await LegacyBlobFiles.find(dir);
  if (!files) return null;
  const target = await SqliteBlobStore.open({ path: `${dir}/blobs.sqlite`, secret });
  try {
    return await moveBlobFiles(files, target, secret, tell);
  } finally {
    await target.close();
  }
}
