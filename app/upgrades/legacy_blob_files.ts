/**
 * The blob files that earlier versions' fs store (`SVC_BLOB_STORE=fs`) wrote under a data
 * directory's `blobs/`, read to move them into `blobs/blobs.sqlite`:
 *
 * - `objects/<id[0..2]>/<id>`: a blob's bytes; `<id>.json` beside it: its metadata (`owner`,
 *   `namespace`, `memoryId`, `createdAt`, and `sealedVector`, `sealedAttributes` when it has
 *   them; versions up to 0.1.0 wrote a manual memory's vector in clear, as `vector`);
 * - `index/<sha256(owner)>/<sha256(namespace)>/<created_at>-<id>`: a listing entry per blob,
 *   written once its bytes and metadata were whole (a hard link to the metadata file, or an
 *   empty file).
 *
 * Only listed blobs are read: a blob without an entry is one a crash cut short. Ids that are not
 * 43 base64url characters are ignored: no path is ever made from them. The errors of the file
 * system name no path (the listing's folder names are hashes of owners and namespaces).
 */
import { backendError, type BlobMeta, type ListedBlobMeta } from "@svc/relayer/kit";
import { nullIfMissing, pathExists } from "@svc/util/files";

const BLOB_ID = /^[A-Za-z0-9_-]{43}$/;

/** A listed blob: its id, its listing entry, and its metadata (`null` when it cannot be read). */
export interface LegacyBlob {
  blobId: string;
  listing: string;
  meta: ListedBlobMeta | null;
}

/** The failure of `action` on the files, its cause without the path it named. */
function filesError(action: string, error: unknown): Error {
  const name = error instanceof Error ? error.name : "Error";
  return backendError("the blob files", action, new Error(`${name} on a blob file`));
}

/** The entries of folder `dir`; none when it is gone. */
async function* folderEntries(dir: string): AsyncIterable<Deno.DirEntry> {
  try {
    for await (const entry of Deno.readDir(dir)) yield entry;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** Removes a file (or, `recursive`, a folder); none is fine. */
async function removePath(path: string, recursive = false): Promise<void> {
  await nullIfMissing(Deno.remove(path, { recursive }));
}

/**
 * The metadata of a JSON file, with a clear `vector` (0.1.0) read as `legacyVector`; `null` when
 * it is not an object naming its owner and namespace.
 */
function listedMeta(json: string): ListedBlobMeta | null {
  let parsed: BlobMeta & { vector?: number[] };
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  const { owner, namespace, memoryId, createdAt, sealedVector, sealedAttributes, vector } =
    parsed ?? {};
  if (typeof owner !== "string" || typeof namespace !== "string") return null;
  const meta: ListedBlobMeta = { owner, namespace, memoryId, createdAt };
  if (sealedVector !== undefined) meta.sealedVector = sealedVector;
  if (sealedAttributes !== undefined) meta.sealedAttributes = sealedAttributes;
  if (Array.isArray(vector)) meta.legacyVector = vector;
  return meta;
}

/** The blob files under a data directory's `blobs/`; see the module documentation. */
export class LegacyBlobFiles {
  readonly #dir: string;

  private constructor(dir: string) {
    this.#dir = dir;
  }

  /** The blob files in `dir` (a data directory's `blobs/`), `null` when it has no `objects`. */
  static async find(dir: string): Promise<LegacyBlobFiles | null> {
    return await pathExists(`${dir}/objects`) ? new LegacyBlobFiles(dir) : null;
  }

  /** Whether `dir` (a data directory's `blobs/`) holds blob files. */
  static async holdsBlobs(dir: string): Promise<boolean> {
    for await (const _ of folderEntries(`${dir}/objects`)) return true;
    return false;
  }

  #objectPath(blobId: string): string {
    return `${this.#dir}/objects/${blobId.slice(0, 2)}/${blobId}`;
  }

  /** Every listed blob, of every owner and namespace, in no particular order. */
  async *entries(): AsyncIterable<LegacyBlob> {
    const index = `${this.#dir}/index`;
    try {
      for await (const owner of folderEntries(index)) {
        if (!owner.isDirectory) continue;
        for await (const namespace of folderEntries(`${index}/${owner.name}`)) {
          if (!namespace.isDirectory) continue;
          const folder = `${index}/${owner.name}/${namespace.name}`;
          for await (const file of folderEntries(folder)) {
            const blobId = file.name.slice(file.name.indexOf("-") + 1);
            if (!file.isFile || !BLOB_ID.test(blobId)) continue;
            const json = await nullIfMissing(Deno.readTextFile(`${this.#objectPath(blobId)}.json`));
            const meta = json === null ? null : listedMeta(json);
            yield { blobId, listing: `${folder}/${file.name}`, meta };
          }
        }
      }
    } catch (error) {
      throw filesError("list every blob", error);
    }
  }

  /** A blob's bytes, or `null` when there are none. */
  async get(blobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    if (!BLOB_ID.test(blobId)) return null;
    try {
      return await nullIfMissing(Deno.readFile(this.#objectPath(blobId)));
    } catch (error) {
      throw filesError("read the blob", error);
    }
  }

  /**
   * Deletes one blob's files: its listing entry first, then its bytes and metadata, so that a
   * deletion cut short leaves a blob that is no longer read.
   */
  async removeBlob({ blobId, listing }: LegacyBlob): Promise<void> {
    if (!BLOB_ID.test(blobId)) return;
    try {
      await removePath(listing);
      await removePath(this.#objectPath(blobId));
      await removePath(`${this.#objectPath(blobId)}.json`);
    } catch (error) {
      throw filesError("delete a moved blob", error);
    }
  }

  /**
   * Deletes the folders: the listing first (its entries are links to the metadata), so that a
   * removal cut short still finds `objects` and is finished by the next.
   */
  async remove(): Promise<void> {
    try {
      for (const name of ["index", "objects"]) await removePath(`${this.#dir}/${name}`, true);
    } catch (error) {
      throw filesError("delete the blob files", error);
    }
  }
}
