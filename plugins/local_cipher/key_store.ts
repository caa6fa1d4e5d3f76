/**
 * Where the local cipher keeps the wrapped data keys of memories: a SQLite file of its own (the
 * relayer's key store, `keys.sqlite` in the data directory), or a map in memory when the cipher
 * is opened without one (tests, tools). A memory has one key per encryption (a job that is
 * retried encrypts again), and erasing a memory deletes all of them.
 *
 * The file is a `DurableSqlite`: the puts of one turn of the event loop are one commit, each
 * resolving once it is on disk; an erase resolves once the deleted keys are overwritten with
 * zeros and the write-ahead log is cut to nothing, so no file of the store holds them. An erase
 * writes the few pages its keys were on, whatever the size of the store.
 *
 * Earlier versions kept the keys in a Deno KV database (`keys.kv`); `importKvKeys` moves them
 * into the file, then deletes the old one.
 */
import type { DatabaseSync } from "node:sqlite";
import { backendError, type KeyPlace, type KeyStore } from "@svc/relayer/kit";
import { DurableSqlite } from "@svc/util/durable_sqlite";
import { pathExists } from "@svc/util/files";

export type { KeyPlace, KeyStore };

/** The longest memory id (UTF-8 bytes) a ciphertext can carry. */
export const MAX_MEMORY_ID_BYTES = 255;
/** The longest owner (UTF-8 bytes) whose memories get keys of their own. */
export const MAX_OWNER_BYTES = 1024;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS keys (
    owner TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    key_tag TEXT NOT NULL,
    wrapped BLOB NOT NULL,
    PRIMARY KEY (owner, memory_id, key_tag)
  ) STRICT, WITHOUT ROWID;
`;
/** Rows `entries` reads at a time. */
const PAGE = 500;

/** A wrapped key with its place. */
export interface KeyEntry {
  /** Whose key, for which memory and encryption. */
  place: KeyPlace;
  /** The key, wrapped. */
  wrapped: Uint8Array<ArrayBuffer>;
}

interface Row {
  owner: string;
  memory_id: string;
  key_tag: string;
  wrapped: Uint8Array<ArrayBuffer>;
}

/** The statements of the store, prepared once. */
function statements(db: DatabaseSync) {
  return {
    insert: db.prepare(
      "INSERT INTO keys (owner, memory_id, key_tag, wrapped) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT DO UPDATE SET wrapped = excluded.wrapped",
    ),
    select: db.prepare(
      "SELECT wrapped FROM keys WHERE owner = ? AND memory_id = ? AND key_tag = ?",
    ),
    remove: db.prepare("DELETE FROM keys WHERE owner = ? AND memory_id = ?"),
    page: db.prepare(
      "SELECT owner, memory_id, key_tag, wrapped FROM keys WHERE (owner, memory_id, key_tag) > " +
        `(?, ?, ?) ORDER BY owner, memory_id, key_tag LIMIT ${PAGE}`,
    ),
  };
}

/** The key store in a SQLite file; `close` closes it. */
export class SqliteKeyStore implements KeyStore {
  #file: DurableSqlite;
  #sql: ReturnType<typeof statements>;

  private constructor(file: DurableSqlite) {
    this.#file = file;
    this.#sql = statements(file.db);
  }

  /** Opens (or creates) the store at `path`. */
  static async open(path: string): Promise<SqliteKeyStore> {
    try {
      return new SqliteKeyStore(await DurableSqlite.open(path, SCHEMA));
    } catch (cause) {
      throw backendError("the key store", "open its file", cause);
    }
  }

  async put({ owner, memoryId, keyTag }: KeyPlace, wrapped: Uint8Array<ArrayBuffer>) {
    try {
      await this.#file.write(() => this.#sql.insert.run(owner, memoryId, keyTag, wrapped.slice()));
    } catch (cause) {
      throw backendError("the key store", "store a key", cause);
    }
  }

  // deno-lint-ignore require-await
  async get({ owner, memoryId, keyTag }: KeyPlace): Promise<Uint8Array<ArrayBuffer> | null> {
    try {
      const row = this.#sql.select.get(owner, memoryId, keyTag) as Pick<Row, "wrapped"> | undefined;
      return row?.wrapped ?? null;
    } catch (cause) {
      throw backendError("the key store", "read a key", cause);
    }
  }

  /** Deletes the keys in the transaction of the puts asked for before it: those are erased too. */
  async erase(owner: string, memoryIds: string[]): Promise<void> {
    const ids = [...new Set(memoryIds)];
    try {
      await this.#file.write(() => {
        for (const memoryId of ids) this.#sql.remove.run(owner, memoryId);
      }, { wipe: true });
    } catch (cause) {
      throw backendError("the key store", "erase keys", cause);
    }
  }

  close(): Promise<void> {
    return this.#file.close();
  }

  /** Every wrapped key with its place, in key order (for copying the store elsewhere). */
  async *entries(): AsyncIterable<KeyEntry> {
    let after = ["", "", ""];
    while (true) {
      const rows = this.#sql.page.all(...after) as unknown as Row[];
      for (const row of rows) {
        yield {
          place: { owner: row.owner, memoryId: row.memory_id, keyTag: row.key_tag },
          wrapped: row.wrapped,
        };
      }
      if (rows.length < PAGE) return;
      const last = rows.at(-1)!;
      after = [last.owner, last.memory_id, last.key_tag];
    }
  }
}

/** The keys of a Deno KV key store an earlier version wrote, in key order. */
export async function* kvKeyEntries(kv: Deno.Kv): AsyncIterable<KeyEntry> {
  for await (const entry of kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["key"] })) {
    const [, owner, memoryId, keyTag] = entry.key as string[];
    if (entry.value instanceof Uint8Array) {
      yield { place: { owner, memoryId, keyTag }, wrapped: entry.value };
    }
  }
}

/** The files of a Deno KV database at `path`: the database, its log and its shared memory. */
const kvFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`];

/**
 * Moves the keys of the Deno KV key store at `kvPath` (an earlier version's) into `store`, then
 * deletes its files; resolves to how many keys moved. Interrupted, it leaves the old store as
 * it was, and the next call moves its keys again.
 */
export async function importKvKeys(kvPath: string, store: SqliteKeyStore): Promise<number> {
  if (!await pathExists(kvPath)) {
    // What a move interrupted after deleting the database left of it.
    for (const file of kvFiles(kvPath)) await Deno.remove(file).catch(() => {});
    return 0;
  }
  const kv = await Deno.openKv(kvPath);
  let moved = 0;
  try {
    const puts: Promise<void>[] = [];
    for await (const { place, wrapped } of kvKeyEntries(kv)) {
      puts.push(store.put(place, wrapped));
      moved++;
      if (puts.length === PAGE) await Promise.all(puts.splice(0));
    }
    await Promise.all(puts);
  } finally {
    kv.close();
  }
  for (const file of kvFiles(kvPath)) await Deno.remove(file).catch(() => {});
  return moved;
}

/** The key store in memory: keys last as long as the object. */
export class MemoryKeyStore implements KeyStore {
  /** owner → memory id → key tag → wrapped key. */
  #keys = new Map<string, Map<string, Map<string, Uint8Array<ArrayBuffer>>>>();

  put({ owner, memoryId, keyTag }: KeyPlace, wrapped: Uint8Array<ArrayBuffer>): Promise<void> {
    let memories = this.#keys.get(owner);
    if (!memories) this.#keys.set(owner, memories = new Map());
    let tags = memories.get(memoryId);
    if (!tags) memories.set(memoryId, tags = new Map());
    tags.set(keyTag, wrapped.slice());
    return Promise.resolve();
  }

  get({ owner, memoryId, keyTag }: KeyPlace): Promise<Uint8Array<ArrayBuffer> | null> {
    return Promise.resolve(this.#keys.get(owner)?.get(memoryId)?.get(keyTag)?.slice() ?? null);
  }

  erase(owner: string, memoryIds: string[]): Promise<void> {
    const memories = this.#keys.get(owner);
    for (const memoryId of memoryIds) memories?.delete(memoryId);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
