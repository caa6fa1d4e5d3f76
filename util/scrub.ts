/**
 * Wiping what a SQLite file (a Deno KV database is one) still holds of deleted rows. SQLite
 * leaves a deleted row's bytes in the file's free space and in its write-ahead log until they
 * are written over. `scrubSqlite` copies every row into a new file and puts it in the old one's
 * place: only the live rows are in it. It does what `VACUUM` does, without `ATTACH`, which Deno
 * refuses to a process that lacks any permission. Nothing else may have the file open meanwhile.
 *
 * @example
 * ```ts ignore
 * await scrubSqlite("./jobs.kv"); // before Deno KV opens it: no deleted value is in its files
 * ```
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";

/** Tries of the log's truncation while another connection is reading it. */
const CHECKPOINT_TRIES = 50;
/** What a copy carries over of the database's own settings. */
const SETTINGS = ["page_size", "auto_vacuum", "user_version", "application_id"];

interface SchemaEntry {
  type: string;
  name: string;
  sql: string;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Rewrites the database at `path` (closed everywhere else) with its live rows only, in the same
 * journal mode; its log and shared memory files are removed. Interrupted, it leaves the old file.
 */
export async function scrubSqlite(path: string): Promise<void> {
  const copy = `${path}.scrub`;
  await Deno.remove(copy).catch(() => {});
  const source = new DatabaseSync(path);
  try {
    source.exec("PRAGMA busy_timeout = 5000");
    await truncateLog(source);
    const target = new DatabaseSync(copy);
    try {
      copyDatabase(source, target);
    } finally {
      target.close();
    }
  } catch (error) {
    await Deno.remove(copy).catch(() => {});
    throw error;
  } finally {
    source.close();
  }
  const file = await Deno.open(copy, { read: true, write: true });
  try {
    await file.sync();
  } finally {
    file.close();
  }
  for (const suffix of ["-wal", "-shm"]) await Deno.remove(path + suffix).catch(() => {});
  await Deno.rename(copy, path);
}

/** Copies `source`'s settings, schema and rows into the empty `target`, in one transaction. */
function copyDatabase(source: DatabaseSync, target: DatabaseSync): void {
  for (const setting of SETTINGS) {
    const value = Object.values(source.prepare(`PRAGMA ${setting}`).get()!)[0];
    target.exec(`PRAGMA ${setting} = ${Number(value)}`);
  }
  const schema = source.prepare(
    "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid",
  ).all() as unknown as SchemaEntry[];
  const tables = schema.filter((e) => e.type === "table" && !e.name.startsWith("sqlite_"));
  target.exec("BEGIN");
  for (const { sql } of tables) target.exec(sql);
  for (const { name } of tables) copyRows(source, target, name);
  if (schema.some((e) => e.name === "sqlite_sequence")) copyRows(source, target, "sqlite_sequence");
  // Indexes, views and triggers once the rows are in, so no trigger fires on the copy.
  for (const { type, sql } of schema) if (type !== "table") target.exec(sql);
  target.exec("COMMIT");
  const { journal_mode } = source.prepare("PRAGMA journal_mode").get() as { journal_mode: string };
  target.exec(`PRAGMA journal_mode = ${journal_mode}`);
}

/** Copies the rows of `table`, their row ids included where it has them. */
function copyRows(source: DatabaseSync, target: DatabaseSync, table: string): void {
  const columns = (source.prepare(`PRAGMA table_info(${quoted(table)})`).all() as {
    name: string;
  }[]).map(({ name }) => quoted(name));
  let read: StatementSync;
  try {
    read = source.prepare(`SELECT rowid, ${columns.join(", ")} FROM ${quoted(table)}`);
    columns.unshift("rowid");
  } catch {
    read = source.prepare(`SELECT ${columns.join(", ")} FROM ${quoted(table)}`); // WITHOUT ROWID
  }
  read.setReadBigInts(true);
  read.setReturnArrays(true);
  const write = target.prepare(
    `INSERT INTO ${quoted(table)} (${columns.join(", ")}) ` +
      `VALUES (${columns.map(() => "?").join(", ")})`,
  );
  for (const row of read.iterate()) write.run(...(row as unknown as never[]));
}

/**
 * Checkpoints `db`'s write-ahead log and cuts it to nothing; a reader holding an older snapshot
 * (a read of another connection under way) is waited for, briefly, and tried again.
 */
export async function truncateLog(db: DatabaseSync): Promise<void> {
  for (let tries = 1;; tries++) {
    const { busy } = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
    if (busy === 0) return;
    if (tries === CHECKPOINT_TRIES) {
      throw new Error("the write-ahead log stays in use by another connection");
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
