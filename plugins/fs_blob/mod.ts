/**
 * A content-addressed blob store on the local file system. A blob id is the unpadded base64url
 * SHA-256 of the bytes. Layout under the root directory:
 *
 * - `objects/<id[0..2]>/<id>`: the bytes; `<id>.json` beside it: the metadata;
 * - `index/<sha256(owner)>/<sha256(namespace)>/<created_at>-<id>`: entries that let `list` read
 *   one owner's namespace without scanning every blob (hard links to the metadata file; empty
 *   files where the file system has no links, and as versions up to 0.1.0 wrote them).
 *
 * The metadata JSON holds `owner`, `namespace`, `memoryId`, `createdAt`, `sealedAttributes`
 * (opaque) for a memory that has attributes and, for a manual memory, `sealedVector` (opaque);
 * nothing else is written. A `vector` array of numbers, as
 * versions up to 0.1.0 wrote for a manual memory, is still read, as `legacyVector`.
 *
 * A put writes the bytes and the metadata at once, each created under its final name, written
 * and synced, then the listing entry: what `put` returned survives a crash of the process or
 * of the machine. A file a crash cut short is never read as a blob: it has no listing entry
 * yet, and putting the same bytes again (a job resumes by doing so) finds it incomplete and
 * writes it again, to a temporary name synced and renamed over it (bytes that do not hash to
 * their id, metadata that does not parse). Folders are created 0700 and files 0600 (owner
 * only); the folders a store created are remembered, so a put makes none it made before.
 *
 * A delete removes the listing entry, then the bytes, then the metadata (which tells where the
 * entry is, so a delete cut short by a crash is finished by the same delete again), syncing each
 * folder it changed; folders stay. A delete naming a memory leaves a blob whose metadata names
 * another. Ids that are not 43 base64url characters are ignored: no path is ever made from them.
 */
import {
  backendError,
  type BlobEntry,
  blobIdOf,
  type BlobMeta,
  type BlobStore,
  type CallOptions,
  heldForAnotherMemory,
  type ListedBlobMeta,
  sha256Hex,
} from "../../src/kit.ts";

const BLOB_ID = /^[A-Za-z0-9_-]{43}$/;

async function writeAtomic(path: string, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  await writeNew(temp, bytes);
  await Deno.rename(temp, path);
}

/** Creates `path` with `bytes`, synced; `false` (nothing written) when it exists already. */
async function writeNew(path: string, bytes: Uint8Array<ArrayBuffer>): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  }
  try {
    for (let at = 0; at < bytes.byteLength;) at += await file.write(bytes.subarray(at));
    await file.sync();
  } finally {
    file.close();
  }
  return true;
}

/**
 * Makes the listing entry `entry` of the blob whose metadata is in `metaPath`: a hard link to
 * that file (no new file to allocate), or an empty file where links are not supported.
 */
async function listed(metaPath: string, entry: string): Promise<void> {
  try {
    await Deno.link(metaPath, entry);
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return;
    if (error instanceof Deno.errors.NotFound) throw error;
    await writeNew(entry, new Uint8Array());
  }
}

/** Removes a file; `false` when there was none. */
async function removeFile(path: string): Promise<boolean> {
  try {
    await Deno.remove(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Makes a folder's entries durable (what a removal or a new name changed in it). */
async function syncDir(dir: string): Promise<void> {
  // Folders cannot be opened for syncing on Windows, where renames and removals are durable.
  if (Deno.build.os === "windows") return;
  const folder = await Deno.open(dir, { read: true });
  try {
    await folder.sync();
  } finally {
    folder.close();
  }
}

/** The metadata in a file, or `null` when it is empty or cut short (a crash while writing). */
function parsedMeta(json: string): BlobMeta | null {
  try {
    const meta = JSON.parse(json);
    return meta && typeof meta.owner === "string" && typeof meta.namespace === "string"
      ? meta
      : null;
  } catch {
    return null;
  }
}

/** The fields of `meta` the store writes, and no others. */
function storedMeta(meta: BlobMeta): BlobMeta {
  const { owner, namespace, memoryId, createdAt, sealedVector, sealedAttributes } = meta;
  const out: BlobMeta = { owner, namespace, memoryId, createdAt };
  if (sealedVector !== undefined) out.sealedVector = sealedVector;
  if (sealedAttributes !== undefined) out.sealedAttributes = sealedAttributes;
  return out;
}

/** The metadata of a JSON file, with a legacy clear `vector` read as `legacyVector`. */
function listedMeta(json: string): ListedBlobMeta {
  const { vector, ...rest } = JSON.parse(json) as BlobMeta & { vector?: number[] };
  const meta: ListedBlobMeta = storedMeta(rest);
  if (Array.isArray(vector)) meta.legacyVector = vector;
  return meta;
}

/** Options of {@link FsBlobStore.open}. */
export interface FsBlobStoreOptions {
  /** The store's folder. */
  dir: string;
}

/** Folders and listing paths a store remembers at most, before it forgets them all. */
const REMEMBERED = 10_000;

/** The fs `BlobStore`; see the module documentation. */
export class FsBlobStore implements BlobStore {
  readonly name = "fs";
  readonly root: string;
  /** Folders this store made (or found), so a put does not make them again. */
  #made = new Set<string>();
  /** The listing folder of each owner and namespace seen. */
  #indexDirs = new Map<string, Promise<string>>();

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

  #indexDir(owner: string, namespace: string): Promise<string> {
    const name = JSON.stringify([owner, namespace]);
    let dir = this.#indexDirs.get(name);
    if (!dir) {
      if (this.#indexDirs.size >= REMEMBERED) this.#indexDirs.clear();
      dir = Promise.all([sha256Hex(owner), sha256Hex(namespace)])
        .then(([o, n]) => `${this.root}/index/${o}/${n}`);
      this.#indexDirs.set(name, dir);
    }
    return dir;
  }

  async #mkdir(dir: string): Promise<void> {
    if (this.#made.has(dir)) return;
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    if (this.#made.size >= REMEMBERED) this.#made.clear();
    this.#made.add(dir);
  }

  async put(
    bytes: Uint8Array<ArrayBuffer>,
    meta: BlobMeta,
    options?: CallOptions,
  ): Promise<string> {
    options?.signal?.throwIfAborted();
    try {
      const blobId = blobIdOf(bytes);
      const path = this.#objectPath(blobId);
      await this.#mkdir(path.slice(0, path.lastIndexOf("/")));
      // The first put of these bytes decides their metadata: they belong to its memory.
      const [, stored] = await Promise.all([
        this.#putBytes(path, blobId, bytes),
        this.#putMeta(`${path}.json`, storedMeta(meta)),
      ]);
      if (stored.memoryId !== meta.memoryId) throw heldForAnotherMemory();
      // Last, and again by a put that repeats one cut short before it: what `list` reads.
      const dir = await this.#indexDir(stored.owner, stored.namespace);
      await this.#mkdir(dir);
      const stamp = String(stored.createdAt).padStart(15, "0");
      await listed(`${path}.json`, `${dir}/${stamp}-${blobId}`);
      return blobId;
    } catch (error) {
      throw backendError("the fs blob store", "store the blob", error);
    }
  }

  /** Writes the bytes, unless a file holding them is there already. */
  async #putBytes(path: string, blobId: string, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
    if (await writeNew(path, bytes)) return;
    const found = await Deno.readFile(path);
    if (found.byteLength === bytes.byteLength && blobIdOf(found) === blobId) return;
    await writeAtomic(path, bytes);
  }

  /** Writes the metadata, unless whole metadata is there already; resolves to what is kept. */
  async #putMeta(path: string, meta: BlobMeta): Promise<BlobMeta> {
    const json = new TextEncoder().encode(JSON.stringify(meta));
    if (await writeNew(path, json)) return meta;
    const found = parsedMeta(await Deno.readTextFile(path));
    if (found) return found;
    await writeAtomic(path, json);
    return meta;
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

  async delete(blobId: string, options?: CallOptions & { memoryId?: string }): Promise<void> {
    options?.signal?.throwIfAborted();
    if (!BLOB_ID.test(blobId)) return;
    const path = this.#objectPath(blobId);
    try {
      let meta: BlobMeta | null = null;
      try {
        meta = parsedMeta(await Deno.readTextFile(`${path}.json`));
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      if (options?.memoryId !== undefined && meta && meta.memoryId !== options.memoryId) return;
      // A put writes its entry only after whole metadata: unreadable metadata has no entry.
      if (meta) {
        const dir = await this.#indexDir(meta.owner, meta.namespace);
        const stamp = String(meta.createdAt).padStart(15, "0");
        // Durable before the metadata goes: an entry must never outlive it.
        if (await removeFile(`${dir}/${stamp}-${blobId}`)) await syncDir(dir);
      }
      const removed = await Promise.all([removeFile(path), removeFile(`${path}.json`)]);
      if (removed.some(Boolean)) await syncDir(path.slice(0, path.lastIndexOf("/")));
    } catch (error) {
      throw backendError("the fs blob store", "delete the blob", error);
    }
  }

  /**
   * Every blob `list` answers, of every owner and namespace, in no particular order (for copying
   * the store elsewhere): those whose listing entry is written, never one a crash cut short.
   */
  async *entries(): AsyncIterable<BlobEntry> {
    const folders = async function* (dir: string) {
      try {
        for await (const entry of Deno.readDir(dir)) yield entry;
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    };
    try {
      for await (const owner of folders(`${this.root}/index`)) {
        if (!owner.isDirectory) continue;
        for await (const namespace of folders(`${this.root}/index/${owner.name}`)) {
          if (!namespace.isDirectory) continue;
          for await (const file of folders(`${this.root}/index/${owner.name}/${namespace.name}`)) {
            const blobId = file.name.slice(file.name.indexOf("-") + 1);
            if (!file.isFile || !BLOB_ID.test(blobId)) continue;
            try {
              const json = await Deno.readTextFile(`${this.#objectPath(blobId)}.json`);
              yield { blobId, meta: listedMeta(json) };
            } catch (error) {
              if (!(error instanceof Deno.errors.NotFound)) throw error;
            }
          }
        }
      }
    } catch (error) {
      throw backendError("the fs blob store", "list every blob", error);
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
    const limit = options.limit ?? names.length;
    for (const name of names) {
      if (out.length >= limit) break;
      const blobId = name.slice(name.indexOf("-") + 1);
      const path = `${this.#objectPath(blobId)}.json`;
      let json: string;
      try {
        json = await Deno.readTextFile(path, { signal: options.signal });
      } catch (error) {
        // Deleted since the folder was read.
        if (error instanceof Deno.errors.NotFound) continue;
        throw error;
      }
      out.push({ blobId, meta: listedMeta(json) });
    }
    return out;
  }
}
