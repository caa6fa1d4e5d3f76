/**
 * The encrypted index's storage in the PostgreSQL database several relayers share (migration 6,
 * `schema/index.ts`): one row per namespace header, per sealed block (`bytea`) and per memory's
 * location, every table scoped by the index's name. It holds exactly what the Deno KV storage
 * holds: sealed bytes, keyed hashes, random block ids and memory ids.
 *
 * A commit is one transaction. It takes an advisory lock per namespace it touches (in order, so
 * two commits never deadlock), checks that each namespace is still at the version the change
 * was planned against, and answers `null` (nothing applied) when one moved: two relayers
 * committing to one namespace never both apply against the same version. Versions come from one
 * sequence, so a later commit's is greater; they are zero-padded to compare as strings.
 *
 * Each commit notifies, inside its transaction (so at commit), on channel `svc_index`:
 * `<index>:<ownerHash>:<nsHash>:<version>` per namespace. Every open storage listens and tells
 * its watchers of other writers' commits (its own are recognised by their version, known before
 * the commit); when the listening connection was lost and listens again, it tells them that
 * commits may have been missed.
 *
 * @example
 * ```ts
 * const storage = await PgBlockStorage.open(database, "index");
 * const store = await EncryptedVectorStore.open({ storage, secret, model, dimensions });
 * ```
 */
import { checkIndexName } from "@svc/relayer/kit";
import type {
  BlockStorage,
  IndexChange,
  IndexMeta,
  ListedBlock,
  NamespaceRef,
  StorageWatcher,
  StoredHeader,
} from "@svc/encrypted-index/storage";
import type postgres from "postgres";
import { type Database, pgCall, pgError, type Sql } from "./database.ts";

/** The channel commits are announced on. */
export const INDEX_CHANNEL = "svc_index";
/** Blocks read per round trip while a namespace loads. */
const READ_BATCH = 64;
/** Rows inserted per statement. */
const INSERT_BATCH = 500;
/** Own versions remembered until their notification comes back. */
const MINE_LIMIT = 10_000;

/** A version as a string that sorts as the number does. */
function pad(version: bigint | number | string): string {
  return String(version).padStart(20, "0");
}

/** A row of `svc_index_headers`. */
interface HeaderRow {
  owner_hash: string;
  ns_hash: string;
  name: Uint8Array<ArrayBuffer>;
  count: number;
  version: bigint;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The encrypted index's storage in PostgreSQL; see the module documentation. */
export class PgBlockStorage implements BlockStorage {
  /** The index's name. */
  readonly name: string;
  readonly #database: Database;
  #watchers = new Set<StorageWatcher>();
  /** `ns:version` of this storage's commits whose notification has not come back yet. */
  #mine = new Set<string>();
  #unlisten: (() => Promise<void>) | undefined;
  #closed = false;

  private constructor(database: Database, name: string) {
    this.#database = database;
    this.name = name;
  }

  /** The database's pool now (it is renewed after a lost connection). */
  get #sql(): Sql {
    return this.#database.sql;
  }

  /** The storage of index `name` in `database`, listening for other writers' commits. */
  static async open(database: Database, name: string): Promise<PgBlockStorage> {
    const storage = new PgBlockStorage(database, checkIndexName(name));
    const listening = database.listen(
      INDEX_CHANNEL,
      (payload) => storage.#heard(payload),
      () => storage.#relistened(),
    );
    storage.#unlisten = await pgCall("listen for the index's changes", () => listening);
    return storage;
  }

  #heard(payload: string): void {
    if (this.#closed) return;
    const [index, owner, ns, version] = payload.split(":");
    if (index !== this.name || version === undefined) return;
    if (this.#mine.delete(`${ns}:${version}`)) return;
    for (const watcher of this.#watchers) watcher.changed({ owner, ns }, version);
  }

  #relistened(): void {
    if (this.#closed) return;
    // Whatever was committed while the connection was lost went unheard.
    for (const watcher of this.#watchers) watcher.lost();
  }

  watch(watcher: StorageWatcher): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  async meta(): Promise<IndexMeta | null> {
    const [row] = await pgCall("read the index's record", () =>
      this.#sql<{ meta: IndexMeta }[]>`
        select meta from svc_index_meta where index_name = ${this.name}`);
    return row?.meta ?? null;
  }

  async setMeta(meta: IndexMeta): Promise<void> {
    const value = this.#sql.json({ ...meta });
    await pgCall("record the index", () =>
      this.#sql`
        insert into svc_index_meta (index_name, meta) values (${this.name}, ${value})
        on conflict (index_name) do update set meta = excluded.meta`);
  }

  async note(name: string): Promise<string | null> {
    const [row] = await pgCall("read the index's note", () =>
      this.#sql<{ value: string }[]>`
        select value from svc_index_notes where index_name = ${this.name} and name = ${name}`);
    return row?.value ?? null;
  }

  async setNote(name: string, value: string): Promise<void> {
    await pgCall("write the index's note", () =>
      this.#sql`
        insert into svc_index_notes (index_name, name, value)
        values (${this.name}, ${name}, ${value})
        on conflict (index_name, name) do update set value = excluded.value`);
  }

  async header(ref: NamespaceRef): Promise<StoredHeader | null> {
    const [found] = await this.#headers(this.#sql`and ns_hash = ${ref.ns}`);
    return found ? { ...found, ref } : null;
  }

  headers(owner?: string): Promise<StoredHeader[]> {
    return this.#headers(owner === undefined ? this.#sql`` : this.#sql`and owner_hash = ${owner}`);
  }

  /** The headers of the namespaces `filter` (a condition after `and`, or none) selects. */
  async #headers(filter: postgres.Fragment): Promise<StoredHeader[]> {
    const rows = await pgCall("read the index's namespaces", () =>
      this.#sql<HeaderRow[]>`
        select owner_hash, ns_hash, name, count, version from svc_index_headers
        where index_name = ${this.name} ${filter}
        order by owner_hash, ns_hash`);
    return rows.map((row) => ({
      ref: { owner: row.owner_hash, ns: row.ns_hash },
      header: { name: row.name, count: row.count },
      version: pad(row.version),
    }));
  }

  async *blocks(
    ref: NamespaceRef,
    _version: string,
    held: ReadonlySet<string> = new Set(),
  ): AsyncGenerator<ListedBlock> {
    // Commits are whole: every stored block is committed. The ids come first, so that only
    // the blocks the reader does not hold are read, a batch at a time; one a later commit
    // removed meanwhile does not come (the reader finds the namespace moved on).
    const listed = await pgCall("list the index's blocks", () =>
      this.#sql<{ block_id: string }[]>`
        select block_id from svc_index_blocks
        where index_name = ${this.name} and ns_hash = ${ref.ns}
        order by block_id`);
    const wanted: string[] = [];
    for (const { block_id: id } of listed) {
      if (held.has(id)) yield { id, bytes: null };
      else wanted.push(id);
    }
    for (const batch of chunks(wanted, READ_BATCH)) {
      const rows = await pgCall(
        "read the index's blocks",
        () =>
          this.#sql<{ block_id: string; bytes: Uint8Array<ArrayBuffer> }[]>`
          select block_id, bytes from svc_index_blocks
          where index_name = ${this.name} and ns_hash = ${ref.ns}
            and block_id = any(${batch}::text[])`,
      );
      for (const row of rows) yield { id: row.block_id, bytes: row.bytes };
    }
  }

  async locate(ids: string[]): Promise<Map<string, NamespaceRef>> {
    const found = new Map<string, NamespaceRef>();
    if (ids.length === 0) return found;
    const rows = await pgCall(
      "find the memories in the index",
      () =>
        this.#sql<{ memory_id: string; owner_hash: string; ns_hash: string }[]>`
        select memory_id, owner_hash, ns_hash from svc_index_ids
        where index_name = ${this.name} and memory_id = any(${ids}::text[])`,
    );
    for (const row of rows) found.set(row.memory_id, { owner: row.owner_hash, ns: row.ns_hash });
    return found;
  }

  async commit(change: IndexChange): Promise<string | null> {
    const name = this.name;
    const refs = new Map<string, NamespaceRef>();
    for (const { ref } of [...change.expect, ...change.headers]) refs.set(ref.ns, ref);
    const namespaces = [...refs.keys()].sort();
    let version: string | undefined;
    try {
      return await this.#sql.begin(async (tx) => {
        // One namespace's commits queue here, in the same order in every relayer.
        await tx`
          select pg_advisory_xact_lock(hashtext(${name}), hashtext(ns))
          from (select ns from unnest(${namespaces}::text[]) as ns order by ns) as locked`;
        const stored = await tx<{ ns_hash: string; version: bigint }[]>`
          select ns_hash, version from svc_index_headers
          where index_name = ${name} and ns_hash = any(${namespaces}::text[])`;
        const now = new Map(stored.map((row) => [row.ns_hash, pad(row.version)]));
        for (const { ref, version } of change.expect) {
          if ((now.get(ref.ns) ?? null) !== version) return null;
        }
        const [{ next }] = await tx<
          { next: bigint }[]
        >`select nextval('svc_index_versions') as next`;
        version = pad(next);
        if (this.#mine.size >= MINE_LIMIT) this.#mine.clear();
        // One notification per namespace of the commit: each is this storage's own.
        for (const ns of namespaces) this.#mine.add(`${ns}:${version}`);
        const kept = change.headers.filter((h) => h.header.count > 0);
        const gone = change.headers.filter((h) => h.header.count <= 0).map((h) => h.ref.ns);
        if (kept.length > 0) {
          const rows = kept.map(({ ref, header }) => ({
            index_name: name,
            ns_hash: ref.ns,
            owner_hash: ref.owner,
            name: header.name,
            count: header.count,
            version: Number(next),
          }));
          await tx`
            insert into svc_index_headers ${tx(rows)}
            on conflict (index_name, ns_hash) do update set owner_hash = excluded.owner_hash,
              name = excluded.name, count = excluded.count, version = excluded.version`;
        }
        if (gone.length > 0) {
          await tx`
            delete from svc_index_headers
            where index_name = ${name} and ns_hash = any(${gone}::text[])`;
        }
        if (change.deleteBlocks.length > 0) {
          const ns = change.deleteBlocks.map((b) => b.ns),
            id = change.deleteBlocks.map((b) => b.id);
          await tx`
            delete from svc_index_blocks as b
            using unnest(${ns}::text[], ${id}::text[]) as d(ns, id)
            where b.index_name = ${name} and b.ns_hash = d.ns and b.block_id = d.id`;
        }
        const blocks = change.putBlocks.map(({ ns, block }) => ({
          index_name: name,
          ns_hash: ns,
          block_id: block.id,
          bytes: block.bytes,
        }));
        for (const batch of chunks(blocks, 64)) {
          await tx`insert into svc_index_blocks ${tx(batch)}`;
        }
        const located = change.putIds.map(({ id, ref }) => ({
          index_name: name,
          memory_id: id,
          owner_hash: ref.owner,
          ns_hash: ref.ns,
        }));
        for (const batch of chunks(located, INSERT_BATCH)) {
          await tx`
            insert into svc_index_ids ${tx(batch)}
            on conflict (index_name, memory_id) do update
              set owner_hash = excluded.owner_hash, ns_hash = excluded.ns_hash`;
        }
        if (change.deleteIds.length > 0) {
          await tx`
            delete from svc_index_ids
            where index_name = ${name} and memory_id = any(${change.deleteIds}::text[])`;
        }
        const payloads = namespaces.map((ns) => `${name}:${refs.get(ns)!.owner}:${ns}:${version}`);
        await tx`select pg_notify(${INDEX_CHANNEL}, p) from unnest(${payloads}::text[]) as p`;
        return version;
      }) as string | null;
    } catch (error) {
      for (const ns of version ? namespaces : []) this.#mine.delete(`${ns}:${version}`);
      throw pgError("save the index", error);
    }
  }

  /** Stops listening; the database stays open (it is the composition's to close). */
  close(): void {
    this.#closed = true;
    this.#watchers.clear();
    this.#unlisten?.().catch(() => {});
  }
}
