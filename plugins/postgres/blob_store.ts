/**
 * Ciphertext blobs in the PostgreSQL database many relayers share (`svc_blobs_objects`, one row
 * per blob), content-addressed as the SQLite store is (`BlobPlaces.idOf`): a blob copied from a
 * data directory keeps its id. Putting bytes that are there already for the same memory (a
 * retried job, or two relayers at once) changes nothing; for another memory, it is refused.
 *
 * Nothing readable at rest: the bytes are ciphertext; the owner and namespace are stored only as
 * a keyed hash of the two (`BlobPlaces`), which `list` looks up; the memory id and time (which
 * the ciphertext's header carries too) and the sealed vector and attributes are kept as given.
 * Nothing is cached, so a put or delete through one relayer is seen by the others at once.
 */
import type postgres from "postgres";
import {
  type BlobEntry,
  type BlobMeta,
  BlobPlaces,
  type BlobStore,
  type CallOptions,
  type ListedBlobMeta,
} from "@svc/relayer/kit";
import { type Database, pgError } from "./database.ts";

const BLOB_ID = /^[A-Za-z0-9_-]{43}$/;

/** Options of {@link PgBlobStore.open}. */
export interface PgBlobStoreOptions {
  /** The shared database (its schema at version 4 or later); the caller closes it. */
  database: Database;
  /** The relayer's 32-byte secret (`SVC_MASTER_KEY`), the same on every relayer. */
  secret: Uint8Array<ArrayBuffer>;
}

/**
 * Runs `query` unless `signal` has aborted, cancelling it when `signal` aborts (then rejecting
 * with the signal's reason); a database failure becomes a 503 that names `action`.
 */
async function query<T>(
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
  #places: BlobPlaces;

  private constructor(database: Database, places: BlobPlaces) {
    this.#database = database;
    this.#places = places;
  }

  /** The store on `options.database`, its keyed hashes derived from `options.secret`. */
  static async open(options: PgBlobStoreOptions): Promise<PgBlobStore> {
    return new PgBlobStore(options.database, await BlobPlaces.derive(options.secret));
  }

  async put(
    bytes: Uint8Array<ArrayBuffer>,
    meta: BlobMeta,
    options?: CallOptions,
  ): Promise<string> {
    const blobId = BlobPlaces.idOf(bytes);
    const place = this.#places.place(meta.owner, meta.namespace);
    // The first put of these bytes decides their metadata: they belong to its memory.
    const [holder] = await query(
      this.#database.sql`insert into svc_blobs_objects
        (id, place, memory_id, created_at, sealed_vector, sealed_attributes, bytes)
        values (${blobId}, ${place}, ${meta.memoryId}, ${meta.createdAt},
          ${meta.sealedVector ?? null}, ${meta.sealedAttributes ?? null}, ${bytes})
        on conflict (id) do update set id = excluded.id
        returning memory_id`,
      "store the blob",
      options?.signal,
    );
    if (holder.memory_id !== meta.memoryId) throw BlobPlaces.heldForAnotherMemory();
    return blobId;
  }

  async get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null> {
    options?.signal?.throwIfAborted();
    if (!BLOB_ID.test(blobId)) return null;
    const rows = await query(
      this.#database.sql`select bytes from svc_blobs_objects where id = ${blobId}`,
      "read the blob",
      options?.signal,
    );
    return rows.length ? rows[0].bytes as Uint8Array<ArrayBuffer> : null;
  }

  async delete(blobId: string, options?: CallOptions & { memoryId?: string }): Promise<void> {
    options?.signal?.throwIfAborted();
    if (!BLOB_ID.test(blobId)) return;
    const memoryId = options?.memoryId ?? null;
    await query(
      this.#database.sql`delete from svc_blobs_objects
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
    const place = this.#places.place(owner, namespace);
    const limit = options.limit === undefined ? null : Math.max(0, Math.floor(options.limit));
    const rows = await query(
      this.#database.sql`select id, memory_id, created_at, sealed_vector, sealed_attributes
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
