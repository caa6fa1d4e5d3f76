/**
 * Wiping what a SQLite file (a Deno KV database is one) still holds of deleted rows. SQLite
 * leaves a deleted row's bytes in the file's free space and in its write-ahead log until they
 * are written over; `scrubSqlite` rewrites the file without them (`VACUUM`) and empties the log
 * (`wal_checkpoint(TRUNCATE)`), through a connection of its own, so it works on a database
 * another connection (Deno KV's) has open. It blocks the calling thread for about as long as
 * copying the file takes (a few milliseconds a megabyte).
 *
 * @example
 * ```ts ignore
 * await kv.delete(["secret", id]);
 * await scrubSqlite("./secrets.kv"); // the deleted value is nowhere in secrets.kv's files
 * ```
 */
import { DatabaseSync } from "node:sqlite";

/** Tries of the log's truncation while another connection is reading it. */
const CHECKPOINT_TRIES = 50;

/** Rewrites the database at `path` without the remains of deleted rows; empties its log. */
export async function scrubSqlite(path: string): Promise<void> {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("VACUUM");
    await truncateLog(db);
  } finally {
    db.close();
  }
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

/**
 * `task`, run for its callers one run at a time: a call made while a run is under way is served
 * by the next run, which starts once that one ends and serves every call made meanwhile.
 */
export function coalesced(task: () => Promise<void>): () => Promise<void> {
  let current: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  return () => {
    queued ??= current = current.catch(() => {}).then(() => {
      queued = undefined;
      return task();
    });
    return queued;
  };
}
