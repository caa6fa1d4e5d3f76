/**
 * The encrypted index's storage in one SQLite file of its own (`<name>.sqlite` in the data
 * directory), written through a `DurableSqlite`: a commit is one transaction, on disk when it
 * resolves. It holds what every storage holds: sealed blocks, keyed hashes, random block ids and
 * memory ids.
 *
 * A commit that takes memories out of the index (an erase, an update's old version) resolves
 * only once the blocks it replaced are overwritten with zeros (`secure_delete`) and the log is
 * cut to nothing: no earlier version of a block, with the rows it held, stays in any file.
 *
 * Earlier versions kept an index in a Deno KV database (`<name>.kv`); `openIndexFile` moves it
 * into the SQLite file and deletes the old one.
 *
 * @example
 * ```ts ignore
 * const storage = await SqliteBlockStorage.open("./data/index.sqlite");
 * const store = await EncryptedVectorStore.open({ storage, secret, model, dimensions });
 * ```
 */
import type { DatabaseSync } from "node:sqlite";
import { DurableSqlite } from "@svc/util/durable_sqlite";
import type {
  BlockStorage,
  IndexChange,
  IndexMeta,
  ListedBlock,
  NamespaceRef,
  StoredHeader,
} from "./storage.ts";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS notes (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
  CREATE TABLE IF NOT EXISTS headers (
    ns TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name BLOB NOT NULL,
    count INTEGER NOT NULL,
    version INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS headers_by_owner ON headers (owner, ns);
  CREATE TABLE IF NOT EXISTS blocks (
    ns TEXT NOT NULL,
    id TEXT NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (ns, id)
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS ids (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    ns TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
`;
/** The note that holds the index's record of itself. */
const META = "\0meta";
/** The note that holds the last commit's version. */
const VERSION = "\0version";

/** A version as a string that sorts as the number does. */
const pad = (version: number | bigint) => String(version).padStart(20, "0");

interface HeaderRow {
  ns: string;
  owner: string;
  name: Uint8Array<ArrayBuffer>;
  count: number;
  version: number;
}

const stored = (row: HeaderRow): StoredHeader => ({
  ref: { owner: row.owner, ns: row.ns },
  header: { name: row.name, count: row.count },
  version: pad(row.version),
});

/** The statements of the storage, prepared once. */
function statements(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  return {
    note: sql("SELECT value FROM notes WHERE name = ?"),
    setNote: sql(
      "INSERT INTO notes (name, value) VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value",
    ),
    header: sql("SELECT ns, owner, name, count, version FROM headers WHERE ns = ?"),
    headers: sql("SELECT ns, owner, name, count, version FROM headers ORDER BY owner, ns"),
    ownerHeaders: sql(
      "SELECT ns, owner, name, count, version FROM headers WHERE owner = ? ORDER BY ns",
    ),
    putHeader: sql(
      "INSERT INTO headers (ns, owner, name, count, version) VALUES (?, ?, ?, ?, ?) " +
        "ON CONFLICT DO UPDATE SET owner = excluded.owner, name = excluded.name, " +
        "count = excluded.count, version = excluded.version",
    ),
    deleteHeader: sql("DELETE FROM headers WHERE ns = ?"),
    blockIds: sql("SELECT id FROM blocks WHERE ns = ? ORDER BY id"),
    block: sql("SELECT bytes FROM blocks WHERE ns = ? AND id = ?"),
    putBlock: sql("INSERT OR REPLACE INTO blocks (ns, id, bytes) VALUES (?, ?, ?)"),
    deleteBlock: sql("DELETE FROM blocks WHERE ns = ? AND id = ?"),
    locate: sql("SELECT owner, ns FROM ids WHERE id = ?"),
    locations: sql("SELECT id, owner, ns FROM ids ORDER BY id"),
    putId: sql(
      "INSERT INTO ids (id, owner, ns) VALUES (?, ?, ?) " +
        "ON CONFLICT DO UPDATE SET owner = excluded.owner, ns = excluded.ns",
    ),
    deleteId: sql("DELETE FROM ids WHERE id = ?"),
  };
}

/** The encrypted index's storage in a SQLite file; see the module documentation. */
export class SqliteBlockStorage implements BlockStorage {
  #file: DurableSqlite;
  #sql: ReturnType<typeof statements>;

  private constructor(file: DurableSqlite) {
    this.#file = file;
    this.#sql = statements(file.db);
  }

  /** Opens (creating) the storage's file at `path`, readable by its owner only. */
  static async open(path: string): Promise<SqliteBlockStorage> {
    const slash = path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true, mode: 0o700 });
    return new SqliteBlockStorage(await DurableSqlite.open(path, SCHEMA));
  }

  #note(name: string): string | null {
    return (this.#sql.note.get(name) as { value: string } | undefined)?.value ?? null;
  }

  meta(): Promise<IndexMeta | null> {
    const meta = this.#note(META);
    return Promise.resolve(meta === null ? null : JSON.parse(meta));
  }

  setMeta(meta: IndexMeta): Promise<void> {
    return this.#file.write(() => void this.#sql.setNote.run(META, JSON.stringify(meta)));
  }

  note(name: string): Promise<string | null> {
    return Promise.resolve(this.#note(name));
  }

  setNote(name: string, value: string): Promise<void> {
    return this.#file.write(() => void this.#sql.setNote.run(name, value));
  }

  header(ref: NamespaceRef): Promise<StoredHeader | null> {
    const row = this.#sql.header.get(ref.ns) as HeaderRow | undefined;
    return Promise.resolve(row && row.owner === ref.owner ? stored(row) : null);
  }

  headers(owner?: string): Promise<StoredHeader[]> {
    const rows = owner === undefined ? this.#sql.headers.all() : this.#sql.ownerHeaders.all(owner);
    return Promise.resolve((rows as unknown as HeaderRow[]).map(stored));
  }

  async *blocks(
    ref: NamespaceRef,
    _version: string,
    held: ReadonlySet<string> = new Set(),
  ): AsyncIterable<ListedBlock> {
    const ids = (this.#sql.blockIds.all(ref.ns) as { id: string }[]).map(({ id }) => id);
    for (const id of ids) {
      if (held.has(id)) {
        yield { id, bytes: null };
        continue;
      }
      const row = this.#sql.block.get(ref.ns, id) as { bytes: Uint8Array<ArrayBuffer> } | undefined;
      if (row) yield { id, bytes: row.bytes };
    }
  }

  locate(ids: string[]): Promise<Map<string, NamespaceRef>> {
    const found = new Map<string, NamespaceRef>();
    for (const id of ids) {
      const row = this.#sql.locate.get(id) as NamespaceRef | undefined;
      if (row) found.set(id, { owner: row.owner, ns: row.ns });
    }
    return Promise.resolve(found);
  }

  /** Where every memory of the index is, in id order (for copying the index elsewhere). */
  async *locations(): AsyncIterable<{ id: string; ref: NamespaceRef }> {
    for (const row of this.#sql.locations.iterate() as Iterable<{ id: string } & NamespaceRef>) {
      yield { id: row.id, ref: { owner: row.owner, ns: row.ns } };
    }
  }

  commit(change: IndexChange): Promise<string | null> {
    return this.#file.write(() => this.#apply(change), { wipe: change.deleteIds.length > 0 });
  }

  /** Applies `change` inside the transaction of its write; `null` when a namespace moved. */
  #apply(change: IndexChange): string | null {
    const sql = this.#sql;
    for (const { ref, version } of change.expect) {
      const row = sql.header.get(ref.ns) as HeaderRow | undefined;
      if ((row ? pad(row.version) : null) !== version) return null;
    }
    const next = BigInt(this.#note(VERSION) ?? "0") + 1n;
    sql.setNote.run(VERSION, String(next));
    for (const { ref, header } of change.headers) {
      if (header.count > 0) sql.putHeader.run(ref.ns, ref.owner, header.name, header.count, next);
      else sql.deleteHeader.run(ref.ns);
    }
    for (const { ns, id } of change.deleteBlocks) sql.deleteBlock.run(ns, id);
    for (const { ns, block } of change.putBlocks) sql.putBlock.run(ns, block.id, block.bytes);
    for (const { id, ref } of change.putIds) sql.putId.run(id, ref.owner, ref.ns);
    for (const id of change.deleteIds) sql.deleteId.run(id);
    return pad(next);
  }

  close(): void {
    this.#file.close().catch(() => {});
  }
}
