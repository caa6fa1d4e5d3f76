/**
 * Ciphertext blobs in the PostgreSQL database many relayers share (`svc_blobs_objects`, one row
 * per blob). Content-addressed as the fs store is: a blob's id is the unpadded base64url SHA-256
 * of its bytes, so a blob copied from a data directory keeps its id. Putting bytes that are there
 * already (a retried job, or two relayers at once) changes nothing: the first put's metadata is
 * kept (`ON CONFLICT DO NOTHING`), as with the fs store.
 *
 * Nothing readable at rest: the bytes are ciphertext; the owner and namespace are not stored,
 * only a keyed hash of the two (HMAC-SHA-256 under a key HKDF derives from the relayer's 32-byte
 * secret), which `list` looks up and answers with the owner and namespace it was asked for; the
 * memory id and time (which the fs store's metadata and the ciphertext's header carry too) and a
 * sealed vector are kept as given.
 *
 * The store caches nothing, so a put or delete through one relayer is seen by the others at once.
 */
import { pgError } from "./database.ts";
import postgres from "postgres";
import {
  type BlobEntry,
  blobIdOf,
  type BlobMeta,
  type BlobStore,
  type CallOptions,
  deriveHmacKey,
  heldForAnotherMemory,
  hkdfMaster,
  type ListedBlobMeta,
  SvcError,
} from "../../src/kit.ts";
import type { Database } from "./database.ts";

const BLOB_ID = /^[A-Za-z0-9_-]{43}$/;
const SALT = new TextEncoder().encode("svc-postgres-blobs-v1");
/** Owners and namespaces whose keyed hash is kept, before the cache starts over. */
const CACHE_LIMIT = 10_000;

/** Options of {@link PgBlobStore.open}. */
export interface PgBlobStoreOptions {
  /** The shared database (its schema at version 4 or later); the caller closes it. */
  database: Database;
  /** The relayer's 32-byte secret (`SVC_MASTER_KEY`), the same on every relayer. */
  secret: Uint8Array<ArrayBuffer>;
}

/**
 * Runs `query`, cancelling it when `signal` aborts (then rejecting with the signal's reason);
 * a database failure becomes a 503 that names `action`.
 */
export async function query<T>(
  pending: postgres.PendingQuery<postgres.Row[]> & Promise<T>,
  action: string,
  signal?: AbortSignal,
): Promise<T> {
  signal?.throwIfAborted();
  const cancel = () => pending.cancel();
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    return await pending;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw pgError(action, error);
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}

/** The PostgreSQL `BlobStore`; see the module documentation. */
export class PgBlobStore implements BlobStore {
  readonly name = "postgres";
  readonly #database: Database;
  #naming: CryptoKey;
  #places = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

  private constructor(database: Database, naming: CryptoKey) {
    this.#database = database;
    this.#naming = naming;
  }

  /** The database's pool now (it is renewed after a lost connection). */
  get #sql(): postgres.Sql {
    return this.#database.sql;
  }

  /** The store on `options.database`, its keyed hashes derived from `options.secret`. */
  static async open(options: PgBlobStoreOptions): Promise<PgBlobStore> {
    if (options.secret.byteLength !== 32) {
      throw new SvcError(
        "internal",
        "Cannot open the PostgreSQL blob store: the secret is not 32 bytes",
      );
    }
    const naming = await deriveHmacKey(await hkdfMaster(options.secret), SALT, "blobs:place");
    return new PgBlobStore(options.database, naming);
  }

  /** The keyed hash an owner's namespace is filed under. */
  #place(owner: string, namespace: string): Promise<Uint8Array<ArrayBuffer>> {
    const name = JSON.stringify([owner, namespace]);
    let place = this.#places.get(name);
    if (!place) {
      if (this.#places.size >= CACHE_LIMIT) this.#places.clear();
      place = crypto.subtle.sign("HMAC", this.#naming, new TextEncoder().encode(name))
        .then((mac) => new Uint8Array(mac));
      this.#places.set(name, place);
    }
    return place;
  }

  async put(
    bytes: Uint8Array<ArrayBuffer>,
    meta: BlobMeta,
    options?: CallOptions,
  ): Promise<string> {
    options?.signal?.throwIfAborted();
    const blobId = blobIdOf(bytes);
    const place = await this.#place(meta.owner, meta.namespace);
    // The first put of these bytes decides their metadata: they belong to its memory.
    const [holder] = await query(
      this.#sql`insert into svc_blobs_objects
        (id, place, memory_id, created_at, sealed_vector, sealed_attributes, bytes)
        values (${blobId}, ${place}, ${meta.memoryId}, ${meta.createdAt},
          ${meta.sealedVector ?? null}, ${meta.sealedAttributes ?? null}, ${bytes})
        on conflict (id) do update set id = excluded.id
        returning memory_id`,
      "store the blob",
      options?.signal,
    );
    if (holder.memory_id !== meta.memoryId) throw heldForAnotherMemory();
    return blobId;
  }

  async get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null> {
    options?.signal?.throwIfAborted();
    if (!BLOB_ID.test(blobId)) return null;
    const rows = await query(
      this.#sql`select bytes from svc_blobs_objects where id = ${blobId}`,
      "read the blob",
      options?.signal,
    );
    // A copy in a plain Uint8Array (the client hands out a Node Buffer).
    return rows.length ? new Uint8Array(rows[0].bytes as Uint8Array) : null;
  }

  async delete(blobId: string, options?: CallOptions & { memoryId?: string }): Promise<void> {
    options?.signal?.throwIfAborted();
    if (!BLOB_ID.test(blobId)) return;
    const memoryId = options?.memoryId ?? null;
    await query(
      this.#sql`delete from svc_blobs_objects
        where id = ${blobId} and (${memoryId}::text is null or memory_id = ${memoryId})`,
      "delete the blob",
      options?.signal,
    );
  }

  async list(
    owner: string,
    namespace: string,
    options: CallOptions & { limit?: number } = {},
  ): Promise<BlobEntry[]> {
    options.signal?.throwIfAborted();
    const place = await this.#place(owner, namespace);
    const limit = options.limit === undefined ? null : Math.max(0, Math.floor(options.limit));
    const rows = await query(
      this.#sql`select id, memory_id, created_at, sealed_vector, sealed_attributes
        from svc_blobs_objects
        where place = ${place}
        order by created_at desc, id desc
        limit ${limit}`,
      "list blobs",
      options.signal,
    );
    return rows.map((row) => {
      const meta: ListedBlobMeta = {
        owner,
        namespace,
        memoryId: row.memory_id,
        createdAt: row.created_at,
      };
      if (row.sealed_vector !== null) meta.sealedVector = row.sealed_vector;
      if (row.sealed_attributes !== null) meta.sealedAttributes = row.sealed_attributes;
      return { blobId: row.id, meta };
    });
  }
}
