/**
 * Copying stores' contents in batches, for `svc migrate-store`: the batching and progress its
 * phases share, and the blob copy of both its directions (into PostgreSQL, or from an fs store
 * into the data directory's SQLite store: {@link moveBlobsToSqlite}).
 */
import { SvcError } from "../errors.ts";
import { pathExists } from "../files.ts";
import { VectorSeal } from "../pipeline/vector_seal.ts";
import type { LocalBlobStore } from "./local_blobs.ts";
import type { BlobStore } from "../backends/types.ts";
import { SqliteBlobStore } from "../../plugins/sqlite_blob/mod.ts";
import { FsBlobStore } from "../../plugins/fs_blob/mod.ts";

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

/**
 * Copies every blob of `source` into `target`, ids kept; a legacy clear vector in a blob's
 * metadata is sealed with `VectorSeal` on the way, so nothing is in clear in the target.
 */
export async function copyBlobsInto(
  source: LocalBlobStore,
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
 * `svc migrate-store --to sqlite`: moves the blobs an fs store wrote in `dataDir` (`blobs/objects`)
 * into `blobs/blobs.sqlite`, ids kept, then deletes the fs store's files (the relayer stopped;
 * the caller holds the data directory's `index.lock`). Run again after an interruption, it
 * finishes: a blob copied already is put again harmlessly. Resolves to the blobs moved (0 when
 * an earlier run had moved them all), `null` when there is no fs store.
 */
export async function moveBlobsToSqlite(
  dataDir: string,
  secret: Uint8Array<ArrayBuffer>,
  tell: Tell = () => {},
): Promise<number | null> {
  const dir = `${dataDir}/blobs`;
  if (!await pathExists(`${dir}/objects`)) return null;
  const source = await FsBlobStore.open({ dir });
  const target = await SqliteBlobStore.open({ path: `${dir}/blobs.sqlite`, secret });
  let moved: number;
  try {
    moved = await copyBlobsInto(source, target, secret, tell);
  } finally {
    await target.close();
  }
  // Every blob is committed to the database: the files go, the listing first (its entries are
  // links to the metadata), so that a run cut short here still finds `objects` and finishes.
  for (const folder of ["index", "objects"]) {
    await Deno.remove(`${dir}/${folder}`, { recursive: true }).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  return moved;
}
