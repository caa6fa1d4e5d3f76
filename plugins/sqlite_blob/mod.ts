/**
 * A content-addressed blob store in one SQLite file (`node:sqlite`): the embedded default. A
 * blob id is the unpadded base64url SHA-256 of the bytes, as with the blob files of earlier
 * versions, so ids carry over. Each blob is one row of `blobs`: its bytes and the metadata `put` was
 * given (memory id, time, the sealed attributes and, for a manual memory, the sealed vector),
 * with its owner and namespace as `BlobPlaces` keeps them: a keyed hash of the two, which an
 * index with the time serves `list` by, and the two sealed together. The file names no owner and
 * no namespace; one written by an earlier version, with both in clear, is rewritten so at open.
 *
 * The file is a `DurableSqlite`: the puts and deletes asked for in the same turn of the event loop
 * are one transaction, and each resolves once it is on disk (the WAL synced off the event loop).
 * What a put or delete resolved survives a crash of the process or of the machine. A crash before
 * the sync may leave none of its writes, and the same put again (a job resumes by doing so)
 * writes the blob. A batch of memories is one commit.
 *
 * The first put of some bytes decides their metadata: they belong to its memory. Putting them
 * again for that memory changes nothing; for another, the put fails (`conflict`). A
 * delete removes the row; `secure_delete` overwrites its bytes in the file, and the commit
 * checkpoints the write-ahead log and cuts it to nothing. Ids that are not 43
 * base64url characters are ignored. A read or a commit runs on the calling thread, as short as
 * one SQLite statement; only the WAL's sync runs elsewhere.
 */
import { DatabaseSync } from "node:sqlite";
import {
  backendError,
  type BlobEntry,
  type BlobMeta,
  BlobPlaces,
  type BlobStore,
  type CallOptions,
  SvcError,
} from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";
import { freeBytes } from "@svc/util/free_bytes";
import { DURABLE_PRAGMAS, DurableSqlite } from "@svc/util/durable_sqlite";
import { scrubSqlite } from "@svc/util/scrub";

export type { BlobEntry, BlobMeta, BlobStore, CallOptions, ListedBlobMeta } from "@svc/relayer/kit";

const BLOB_ID = /^[A-Za-z0-9_-]{43}$/;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS blobs (
    id TEXT NOT NULL UNIQUE,
    bytes BLOB NOT NULL,
    place BLOB NOT NULL,
    sealed_name BLOB NOT NULL,
    memory_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    sealed_vector TEXT,
    sealed_attributes TEXT
  ) STRICT;
`;
const INDEX = "CREATE INDEX IF NOT EXISTS blobs_by_place ON blobs (place, created_at, id)";

/** Rows `entries` reads at a time. */
const PAGE = 500;

interface Row {
  id: string;
  place: Uint8Array<ArrayBuffer>;
  sealed_name: Uint8Array<ArrayBuffer>;
  memory_id: string;
  created_at: number;
  sealed_vector: string | null;
  sealed_attributes: string | null;
}

function entryOf(row: Row, { owner, namespace }: { owner: string; namespace: string }): BlobEntry {
  const meta: BlobMeta = { owner, namespace, memoryId: row.memory_id, createdAt: row.created_at };
  if (row.sealed_vector !== null) meta.sealedVector = row.sealed_vector;
  if (row.sealed_attributes !== null) meta.sealedAttributes = row.sealed_attributes;
  return { blobId: row.id, meta };
}

/** Options of {@link SqliteBlobStore.open}. */
export interface SqliteBlobStoreOptions {
  /** The database file; its folder is created when missing. */
  path: string;
  /** The relayer's 32-byte secret, which the owners and namespaces are hashed and sealed with. */
  secret: Uint8Array<ArrayBuffer>;
}

/** The columns of the `blobs` table. */
function columnsOf(db: DatabaseSync): Set<string> {
  const rows = db.prepare("SELECT name FROM pragma_table_info('blobs')").all() as {
    name: string;
  }[];
  return new Set(rows.map(({ name }) => name));
}

/** `user_version` of a store whose names are sealed but whose file may still hold them. */
const UNSCRUBBED = 1;

/**
 * Brings a store an older version made to this one's table: the sealed attributes it lacks (null),
 * and its owners and namespaces, kept in clear, replaced by their places and seals, in one
 * transaction; the file is then rewritten (`scrubSqlite`, tried again at each open until it is done)
 * so that the names are in none of its pages. Resolves to the blobs whose names were sealed.
 */
async function upgrade(db: DatabaseSync, places: BlobPlaces, path: string): Promise<number> {
  if (columnsOf(db).has("owner")) await checkRoom(db, path);
  let sealed = 0;
  db.exec("BEGIN IMMEDIATE");
  try {
    const columns = columnsOf(db);
    if (!columns.has("sealed_attributes")) {
      db.exec("ALTER TABLE blobs ADD COLUMN sealed_attributes TEXT");
    }
    if (columns.has("owner")) sealed = sealNames(db, places);
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
  return sealed;
}

/** Whether the file still holds names an upgrade sealed (its rewrite did not finish). */
function unscrubbed(db: DatabaseSync): boolean {
  const { user_version } = db.prepare("PRAGMA user_version").get() as { user_version: number };
  return user_version === UNSCRUBBED;
}

/** Replaces the owner and namespace columns by places and seals (in the caller's transaction). */
function sealNames(db: DatabaseSync, places: BlobPlaces): number {
  const rows = db.prepare("SELECT rowid, owner, namespace FROM blobs").all() as {
    rowid: number;
    owner: string;
    namespace: string;
  }[];
  db.exec("ALTER TABLE blobs ADD COLUMN place BLOB");
  db.exec("ALTER TABLE blobs ADD COLUMN sealed_name BLOB");
  const update = db.prepare("UPDATE blobs SET place = ?, sealed_name = ? WHERE rowid = ?");
  for (const { rowid, owner, namespace } of rows) {
    update.run(places.place(owner, namespace), places.seal(owner, namespace), rowid);
  }
  db.exec("DROP INDEX IF EXISTS blobs_listing");
  db.exec("ALTER TABLE blobs DROP COLUMN owner");
  db.exec("ALTER TABLE blobs DROP COLUMN namespace");
  db.exec(`PRAGMA user_version = ${UNSCRUBBED}`);
  return rows.length;
}

/** Refuses to rewrite the store at `path` on a disk without room for two more copies of it. */
async function checkRoom(db: DatabaseSync, path: string): Promise<void> {
  const { size } = db.prepare(
    "SELECT page_count * page_size AS size FROM pragma_page_count(), pragma_page_size()",
  ).get() as { size: number };
  const free = await freeBytes(path);
  if (free >= 2 * size) return;
  const mb = (bytes: number) => Math.ceil(bytes / (1024 * 1024));
  throw new SvcError(
    "conflict",
    `Cannot seal the owners and namespaces of ${path}: rewriting it needs about ` +
      `${mb(2 * size)} MB free on its disk, and ${mb(free)} MB are. Free some space and start ` +
      "again",
  );
}

/** Opens the database at `path` and brings an earlier version's store to this one's table. */
async function upgraded(path: string, places: BlobPlaces): Promise<number> {
  let db = new DatabaseSync(path);
  try {
    db.exec(DURABLE_PRAGMAS);
    db.exec(SCHEMA);
    const sealed = await upgrade(db, places, path);
    if (!unscrubbed(db)) return sealed;
    db.close();
    await scrubSqlite(path);
    db = new DatabaseSync(path);
    db.exec(DURABLE_PRAGMAS);
    db.exec("PRAGMA user_version = 0");
    return sealed;
  } finally {
    db.close();
  }
}

/** The statements of the store, prepared once. */
function statements(db: DatabaseSync) {
  const columns = "id, place, sealed_name, memory_id, created_at, sealed_vector, sealed_attributes";
  return {
    insert: db.prepare(
      "INSERT INTO blobs (id, bytes, place, sealed_name, memory_id, created_at, sealed_vector, " +
        "sealed_attributes) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
    ),
    remove: db.prepare("DELETE FROM blobs WHERE id = ?1 AND (?2 IS NULL OR memory_id = ?2)"),
    select: db.prepare("SELECT bytes FROM blobs WHERE id = ?"),
    holder: db.prepare("SELECT memory_id FROM blobs WHERE id = ?"),
    list: db.prepare(
      `SELECT ${columns} FROM blobs WHERE place = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    page: db.prepare(
      `SELECT rowid, ${columns} FROM blobs WHERE rowid > ? ORDER BY rowid LIMIT ${PAGE}`,
    ),
  };
}

/** The SQLite `BlobStore`; see the module documentation. */
export class SqliteBlobStore implements BlobStore {
  readonly name = "sqlite";
  #file: DurableSqlite;
  #sql: ReturnType<typeof statements>;
  #places: BlobPlaces;
  /** Blobs whose owner and namespace, kept in clear by an earlier version, the open sealed. */
  readonly upgraded: number;

  private constructor(file: DurableSqlite, places: BlobPlaces, upgraded: number) {
    this.#file = file;
    this.#sql = statements(file.db);
    this.#places = places;
    this.upgraded = upgraded;
  }

  /** Opens (or creates) the store's database at `options.path`. */
  static async open(options: SqliteBlobStoreOptions): Promise<SqliteBlobStore> {
    const folder = options.path.slice(0, Math.max(0, options.path.lastIndexOf("/")));
    if (folder) await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
    const places = await BlobPlaces.derive(options.secret);
    try {
      const sealed = await upgraded(options.path, places);
      const file = await DurableSqlite.open(options.path, `${SCHEMA}; ${INDEX}`);
      return new SqliteBlobStore(file, places, sealed);
    } catch (error) {
      throw backendError("the sqlite blob store", "open its database", error);
    }
  }

  /** Whether the database at `path` exists and holds a blob. */
  static async holdsBlobs(path: string): Promise<boolean> {
    if (!await pathExists(path)) return false;
    const db = new DatabaseSync(path);
    try {
      db.exec("PRAGMA busy_timeout = 5000");
      return db.prepare("SELECT 1 FROM blobs LIMIT 1").get() !== undefined;
    } catch {
      return false; // not a store's database (no table yet)
    } finally {
      db.close();
    }
  }

  async put(
    bytes: Uint8Array<ArrayBuffer>,
    meta: BlobMeta,
    options?: CallOptions,
  ): Promise<string> {
    options?.signal?.throwIfAborted();
    // Checked here, so that no put can fail the commit it shares with others.
    const { owner, namespace, memoryId, createdAt, sealedVector = "" } = meta;
    const { sealedAttributes = "" } = meta;
    if (
      ![owner, namespace, memoryId, sealedVector, sealedAttributes]
        .every((v) => typeof v === "string") ||
      !Number.isSafeInteger(createdAt)
    ) {
      throw new SvcError(
        "bad_request",
        "Cannot store a blob: its metadata needs an owner, a namespace and a memory id, and its " +
          "time in whole milliseconds",
      );
    }
    // A copy: the bytes are written at the commit, and must still be those the id names.
    const kept = bytes.slice();
    const blobId = BlobPlaces.idOf(kept);
    const place = this.#places.place(owner, namespace);
    const sealedName = this.#places.seal(owner, namespace);
    let refused: boolean;
    try {
      refused = await this.#file.write(() => {
        const { memoryId, createdAt, sealedVector, sealedAttributes } = meta;
        const { changes } = this.#sql.insert.run(
          blobId,
          kept,
          place,
          sealedName,
          memoryId,
          createdAt,
          sealedVector ?? null,
          sealedAttributes ?? null,
        );
        if (changes > 0) return false;
        const holder = this.#sql.holder.get(blobId) as { memory_id: string } | undefined;
        return holder?.memory_id !== memoryId;
      });
    } catch (error) {
      throw backendError("the sqlite blob store", "store the blob", error);
    }
    if (refused) throw BlobPlaces.heldForAnotherMemory();
    return blobId;
  }

  // deno-lint-ignore require-await
  async get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null> {
    options?.signal?.throwIfAborted();
    if (!BLOB_ID.test(blobId)) return null;
    try {
      const row = this.#sql.select.get(blobId) as { bytes: Uint8Array<ArrayBuffer> } | undefined;
      return row?.bytes ?? null;
    } catch (error) {
      throw backendError("the sqlite blob store", "read the blob", error);
    }
  }

  async delete(blobId: string, options?: CallOptions & { memoryId?: string }): Promise<void> {
    options?.signal?.throwIfAborted();
    if (!BLOB_ID.test(blobId)) return;
    try {
      const memoryId = options?.memoryId ?? null;
      await this.#file.write(() => this.#sql.remove.run(blobId, memoryId), { wipe: true });
    } catch (error) {
      throw backendError("the sqlite blob store", "delete the blob", error);
    }
  }

  // deno-lint-ignore require-await
  async list(
    owner: string,
    namespace: string,
    options: CallOptions & { limit?: number } = {},
  ): Promise<BlobEntry[]> {
    options.signal?.throwIfAborted();
    const place = this.#places.place(owner, namespace);
    try {
      const { limit = Infinity } = options;
      // As the other stores: no limit (or not a number) lists all, a negative one none.
      const rows = this.#sql.list.all(
        place,
        limit === Infinity || Number.isNaN(limit) ? -1 : Math.max(0, Math.floor(limit)),
      ) as unknown as Row[];
      return rows.map((row) => entryOf(row, { owner, namespace }));
    } catch (error) {
      throw backendError("the sqlite blob store", "list blobs", error);
    }
  }

  /** Every blob, of every owner and namespace, in the order they were first put. */
  async *entries(): AsyncIterable<BlobEntry> {
    let after = 0;
    while (true) {
      let rows: (Row & { rowid: number })[];
      try {
        rows = this.#sql.page.all(after) as unknown as (Row & { rowid: number })[];
      } catch (error) {
        throw backendError("the sqlite blob store", "list every blob", error);
      }
      for (const row of rows) yield entryOf(row, this.#places.open(row.place, row.sealed_name));
      if (rows.length < PAGE) return;
      after = rows.at(-1)!.rowid;
    }
  }

  /**
   * Closes the database, once the writes asked for so far are committed and synced; then does
   * nothing.
   */
  close(): Promise<void> {
    return this.#file.close();
  }
}
