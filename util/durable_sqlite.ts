/**
 * A SQLite database (`node:sqlite`) whose writes are grouped, durable and, when they delete,
 * wiped. The writes asked for in one turn of the event loop run in one transaction. The file is
 * in WAL mode with `synchronous = NORMAL`, and the WAL is synced after each commit off the event
 * loop (`syncData`), so a write resolves once it is on disk and no commit stalls the process
 * while the disk syncs. `secure_delete` overwrites deleted rows with zeros; a write made with
 * `wipe` resolves only once the log has also been checkpointed and cut to nothing, so the
 * deleted bytes are in no file of the database. Its cost is that of the pages written since the
 * last checkpoint, whatever the size of the file.
 *
 * It needs no permission beyond reading and writing the file: no `VACUUM`, no `ATTACH`. A database
 * opened at `":memory:"` has no file: its writes resolve once committed.
 *
 * @example
 * ```ts ignore
 * const store = await DurableSqlite.open(path, "CREATE TABLE IF NOT EXISTS t (k TEXT, v BLOB)");
 * const remove = store.db.prepare("DELETE FROM t WHERE k = ?");
 * await store.write(() => remove.run("secret"), { wipe: true }); // gone from every file
 * await store.close();
 * ```
 */
import { DatabaseSync } from "node:sqlite";
import { setImmediate } from "node:timers";
import { truncateLog } from "./scrub.ts";

/**
 * The settings of a durable connection: another process holding the write lock is waited for up
 * to 5 s; WAL mode, synced by `DurableSqlite`; deleted rows overwritten with zeros; the WAL file
 * cut back to 4 MiB once checkpointed.
 */
export const DURABLE_PRAGMAS: string = "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; " +
  "PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON; PRAGMA journal_size_limit = 4194304;";

interface Write {
  run(): unknown;
  wipe: boolean;
  done: PromiseWithResolvers<unknown>;
}

/** Grouped, synced and wiping writes to one SQLite file; see the module documentation. */
export class DurableSqlite {
  /** The connection: read with it at will; write only through `write`. */
  readonly db: DatabaseSync;
  /** The log file, synced after each commit; none in memory. */
  #wal: Deno.FsFile | null;
  #pending: Write[] = [];
  #syncing = new Set<Promise<void>>();

  private constructor(db: DatabaseSync, wal: Deno.FsFile | null) {
    this.db = db;
    this.#wal = wal;
  }

  /**
   * Opens (or creates) the database at `path`, private to its owner, and runs `schema`;
   * `":memory:"` keeps it in memory.
   */
  static async open(path: string, schema: string): Promise<DurableSqlite> {
    const db = new DatabaseSync(path);
    try {
      db.exec(DURABLE_PRAGMAS);
      db.exec(schema);
      if (path === ":memory:") return new DurableSqlite(db, null);
      await Deno.chmod(path, 0o600);
      // WAL mode made it; the connection keeps it while open.
      const wal = await Deno.open(`${path}-wal`);
      return new DurableSqlite(db, wal);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Runs `run` in the transaction of this turn of the event loop; resolves to what it returned
   * once the transaction is on disk (with `wipe`, once the log is emptied too). When one write of
   * the transaction throws, none of them is made and each rejects.
   */
  write<T>(run: () => T, options: { wipe?: boolean } = {}): Promise<T> {
    if (!this.db.isOpen) return Promise.reject(new Error("the database is closed"));
    const done = Promise.withResolvers<unknown>();
    const write = { run, wipe: options.wipe ?? false, done };
    if (this.#pending.push(write) === 1) setImmediate(() => this.#commit());
    return done.promise as Promise<T>;
  }

  #commit(): void {
    const writes = this.#pending;
    if (writes.length === 0) return;
    this.#pending = [];
    let results: unknown[];
    try {
      this.db.exec("BEGIN IMMEDIATE");
      results = writes.map((write) => write.run());
      this.db.exec("COMMIT");
    } catch (error) {
      try {
        if (this.db.isTransaction) this.db.exec("ROLLBACK");
      } catch {
        // The transaction is gone with the connection: nothing was committed.
      }
      for (const { done } of writes) done.reject(error);
      return;
    }
    const synced = this.#wal ? this.#wal.syncData() : Promise.resolve();
    const wiped = writes.some((write) => write.wipe)
      ? synced.then(() => truncateLog(this.db))
      : synced;
    const settled = Promise.all(
      writes.map(({ wipe, done }, i) =>
        (wipe ? wiped : synced).then(() => done.resolve(results[i]), done.reject)
      ),
    ).then(() => {}).finally(() => this.#syncing.delete(settled));
    this.#syncing.add(settled);
  }

  /** Commits what was asked for, waits for its sync, then closes; later calls do nothing. */
  async close(): Promise<void> {
    if (!this.db.isOpen) return;
    this.#commit();
    await Promise.all(this.#syncing);
    this.db.close();
    this.#wal?.close();
  }
}
