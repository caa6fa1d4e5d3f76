/**
 * Copying stores' contents in batches, for `svc migrate-store`: the batching and progress its
 * phases share, and the blob copy of both its directions (into PostgreSQL, or from the blob files
 * of earlier versions into the data directory's SQLite store: {@link moveBlobsToSqlite}).
 */
import { SvcError } from "../src/errors.ts";
import { VectorSeal } from "../src/pipeline/vector_seal.ts";
import { LegacyBlobFiles } from "./legacy_blob_files.ts";
import type { LocalBlobStore } from "./local_blobs.ts";
import type { BlobStore } from "../src/backends/types.ts";
import { SqliteBlobStore } from "@svc/sqlite-blob";

/** Items a phase writes at once, unless it says otherwise. */
export const BATCH = 200;

/** `items` in arrays of `size`. */
export async function* batches<T>(items: AsyncIterable<T>, size = BATCH): AsyncIterable<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** How many items `items` lists. */
export async function count(items: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of items) n++;
  return n;
}

/** Told of a phase's progress: items done, of `total`. */
export type Tell = (done: number, total: number) => void;

/**
 * Writes what `items` lists (listed twice: counted, then read) in batches of `size`, telling
 * the progress after each; the number written.
 */
export async function copyAll<T>(
  items: () => AsyncIterable<T>,
  size: number,
  write: (batch: T[]) => Promise<unknown>,
  tell: Tell,
): Promise<number> {
  const total = await count(items());
  let done = 0;
  for await (const batch of batches(items(), size)) {
    await write(batch);
    tell(done += batch.length, total);
  }
  return done;
}

/** What {@link copyBlobsInto} reads: a data directory's blob store, or its blob files. */
export type BlobSource = Pick<LocalBlobStore, "entries" | "get">;

/**
 * Copies every blob of `source` into `target`, ids kept; a legacy clear vector in a blob's
 * metadata is sealed with `VectorSeal` on the way, so nothing is in clear in the target.
 */
export async function copyBlobsInto(
  source: BlobSource,
  target: BlobStore,
  secret: Uint8Array<ArrayBuffer>,
  tell: Tell,
): Promise<number> {
  const seal = await VectorSeal.fromSecret(secret);
  return await copyAll(
    () => source.entries(),
    8,
    (entries) =>
      Promise.all(entries.map(async ({ blobId, meta }) => {
        const bytes = await source.get(blobId);
        if (!bytes) return; // deleted since it was listed
        const { legacyVector, ...kept } = meta;
        if (legacyVector && kept.sealedVector === undefined && kept.memoryId !== undefined) {
          const { memoryId, owner, namespace } = kept;
          kept.sealedVector = await seal.seal({ memoryId, owner, namespace }, legacyVector);
        }
        const stored = await target.put(bytes, kept);
        if (stored !== blobId) {
          throw new SvcError(
            "internal",
            `Cannot copy blob ${blobId}: its bytes do not match its id`,
          );
        }
      })),
    tell,
  );
}

/**
 * Moves the blob files of earlier versions into `target`, the data directory's SQLite store,
 * ids kept, then deletes them. Cut short, the same move again finishes it: a blob copied
 * already is put again harmlessly. Resolves to the blobs moved.
 */
export async function moveBlobFiles(
  files: LegacyBlobFiles,
  target: BlobStore,
  secret: Uint8Array<ArrayBuffer>,
  tell: Tell = () => {},
): Promise<number> {
  const moved = await copyBlobsInto(files, target, secret, tell);
  // Every blob is committed to the database: the files can go.
  await files.remove();
  return moved;
}

/**
 * `svc migrate-store --to sqlite`: {@link moveBlobFiles} for the files in `dataDir`
 * (`blobs/objects`), into `blobs/blobs.sqlite` (the relayer stopped; the caller holds the data
 * directory's `index.lock`). Resolves to the blobs moved (0 when an earlier run had moved them
 * all), `null` when there are no blob files.
 */
export async function moveBlobsToSqlite(
  dataDir: string,
  secret: Uint8Array<ArrayBuffer>,
  tell: Tell = () => {},
): Promise<number | null> {
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
