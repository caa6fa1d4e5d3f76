/**
 * A content-addressed blob store on the local file system. A blob id is the unpadded base64url
 * SHA-256 of the bytes. Layout under the root directory:
 *
 * - `objects/<id[0..2]>/<id>`: the bytes; `<id>.json` beside it: the metadata;
 * - `index/<sha256(owner)>/<sha256(namespace)>/<created_at>-<id>`: empty files that let
 *   `list` read one owner's namespace without scanning every blob.
 *
 * The metadata JSON holds `owner`, `namespace`, `memoryId`, `createdAt` and, for a manual
 * memory, `sealedVector` (opaque); nothing else is written. A `vector` array of numbers, as
 * versions up to 0.1.0 wrote for a manual memory, is still read, as `legacyVector`.
 *
 * Files are written to a temporary name, synced and renamed, so a crash never leaves a
 * partial blob; putting the same bytes again writes whatever a crash kept the first put from
 * writing. Folders are created 0700 and files 0600 (owner only).
 */
import {
  backendError,
  type BlobEntry,
  type BlobMeta,
  type BlobStore,
  type CallOptions,
  type ListedBlobMeta,
  sha256Hex,
} from "../../src/kit.ts";

const BLOB_ID = /^[A-Za-z0-9_-]{43}$/;

async function writeAtomic(path: string, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
  try {
    await file.write(bytes);
    await file.sync();
  } finally {
    file.close();
  }
  await Deno.rename(temp, path);
}

/** The fields of `meta` the store writes, and no others. */
function storedMeta(meta: BlobMeta): BlobMeta {
  const { owner, namespace, memoryId, createdAt, sealedVector } = meta;
  const out: BlobMeta = { owner, namespace, memoryId, createdAt };
  if (sealedVector !== undefined) out.sealedVector = sealedVector;
  return out;
}

/** The metadata of a JSON file, with a legacy clear `vector` read as `legacyVector`. */
function listedMeta(json: string): ListedBlobMeta {
  const { vector, ...rest } = JSON.parse(json) as BlobMeta & { vector?: number[] };
  const meta: ListedBlobMeta = storedMeta(rest);
  if (Array.isArray(vector)) meta.legacyVector = vector;
  return meta;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Options of {@link FsBlobStore.open}. */
export interface FsBlobStoreOptions {
  /** The store's folder. */
  dir: string;
}

export class FsBlobStore implements BlobStore {
  readonly name = "fs";
  readonly root: string;

  private constructor(root: string) {
    this.root = root;
  }

  /** Opens the store in `options.dir`, creating its folders. */
  static async open(options: FsBlobStoreOptions): Promise<FsBlobStore> {
    await Deno.mkdir(`${options.dir}/objects`, { recursive: true, mode: 0o700 });
    await Deno.mkdir(`${options.dir}/index`, { recursive: true, mode: 0o700 });
    return new FsBlobStore(options.dir);
  }

  #objectPath(blobId: string): string {
    return `${this.root}/objects/${blobId.slice(0, 2)}/${blobId}`;
  }

  async #indexDir(owner: string, namespace: string): Promise<string> {
    return `${this.root}/index/${await sha256Hex(owner)}/${await sha256Hex(namespace)}`;
  }

  async put(
    bytes: Uint8Array<ArrayBuffer>,
    meta: BlobMeta,
    options?: CallOptions,
  ): Promise<string> {
    options?.signal?.throwIfAborted();
    try {
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      const blobId = digest.toBase64({ alphabet: "base64url", omitPadding: true });
      const path = this.#objectPath(blobId);
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true, mode: 0o700 });
      if (!(await exists(path))) await writeAtomic(path, bytes);
      // The first put of these bytes decides their metadata.
      let stored = meta;
      if (await exists(`${path}.json`)) {
        stored = JSON.parse(await Deno.readTextFile(`${path}.json`));
      } else {
        const json = JSON.stringify(storedMeta(meta));
        await writeAtomic(`${path}.json`, new TextEncoder().encode(json));
      }
      // Last, and again by a put that repeats one cut short before it: what `list` reads.
      const dir = await this.#indexDir(stored.owner, stored.namespace);
      const stamp = String(stored.createdAt).padStart(15, "0");
      const entry = `${dir}/${stamp}-${blobId}`;
      if (!(await exists(entry))) {
        await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
        await Deno.writeFile(entry, new Uint8Array(), { mode: 0o600 });
      }
      return blobId;
    } catch (error) {
      throw backendError("the fs blob store", "store the blob", error);
    }
  }

  async get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null> {
    options?.signal?.throwIfAborted();
    if (!BLOB_ID.test(blobId)) return null;
    try {
      return await Deno.readFile(this.#objectPath(blobId), { signal: options?.signal });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      if (options?.signal?.aborted) throw options.signal.reason;
      throw backendError("the fs blob store", "read the blob", error);
    }
  }

  async list(
    owner: string,
    namespace: string,
    options: CallOptions & { limit?: number } = {},
  ): Promise<BlobEntry[]> {
    options.signal?.throwIfAborted();
    const names: string[] = [];
    try {
      for await (const entry of Deno.readDir(await this.#indexDir(owner, namespace))) {
        if (entry.isFile) names.push(entry.name);
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return [];
      throw backendError("the fs blob store", "list blobs", error);
    }
    names.sort().reverse();
    const out: BlobEntry[] = [];
    for (const name of names.slice(0, options.limit ?? names.length)) {
      const blobId = name.slice(name.indexOf("-") + 1);
      const path = `${this.#objectPath(blobId)}.json`;
      const meta = listedMeta(await Deno.readTextFile(path, { signal: options.signal }));
      out.push({ blobId, meta });
    }
    return out;
  }
}
