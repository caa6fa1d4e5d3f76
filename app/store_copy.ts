/**
 * Copying stores' contents in batches, for `svc migrate-store --to postgres`: the batching and
 * progress its phases share, and the blob copy. The blob files of earlier versions are moved into
 * the data directory's SQLite store by the upgrades (`@svc/upgrades`).
 */
import { type BlobStore, SvcError } from "@svc/relayer/kit";
import { VectorSeal } from "@svc/relayer/stored";
import { batches, count, type Tell } from "@svc/util/batches";
import { keptMeta } from "@svc/upgrades";
import { heldLocalBlobs, openLocalBlobs } from "./local_blobs.ts";

/** Items a phase writes at once, unless it says otherwise. */
export const BATCH = 200;

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
 * Copies every blob of the data directory `dir` (either local store) into `target`, ids kept; a
 * legacy clear vector in a blob's metadata is sealed with `VectorSeal` on the way, so nothing is
 * in clear in the target.
 */
export async function copyLocalBlobs(
  dir: string,
  target: BlobStore,
  secret: Uint8Array<ArrayBuffer>,
  tell: Tell,
): Promise<number> {
  const held = await heldLocalBlobs(dir);
  if (!held.fs && !held.sqlite) return 0;
  const source = await openLocalBlobs(dir, secret);
  const seal = await VectorSeal.fromSecret(secret);
  try {
    return await copyAll(
      () => source.entries(),
      8,
      (entries) =>
        Promise.all(entries.map(async ({ blobId, meta }) => {
          const bytes = await source.get(blobId);
          if (!bytes) return; // deleted since it was listed
          const stored = await target.put(bytes, await keptMeta(seal, meta));
          if (stored !== blobId) {
            throw new SvcError(
              "internal",
              `Cannot copy blob ${blobId}: its bytes do not match its id`,
            );
          }
        })),
      tell,
    );
  } finally {
    await source.close?.();
  }
}
