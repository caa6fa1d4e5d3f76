/**
 * The mark `svc migrate-store --to postgres` leaves in the data directory it copied, once the
 * copy is done, and the refusal to use that directory afterwards (see {@link checkNotMoved}).
 */
import { SvcError } from "@svc/relayer/kit";

export const MOVED_FILE = "moved-to-postgres.json";

/** Marks `dataDir` as copied into PostgreSQL (now). */
export async function markMoved(dataDir: string): Promise<void> {
  await Deno.writeTextFile(
    `${dataDir}/${MOVED_FILE}`,
    JSON.stringify({ to: "postgres", at: new Date().toISOString() }) + "\n",
    { mode: 0o600 },
  );
}

/**
 * When `dataDir` was copied into PostgreSQL (" on 2026-11-26", or "" when its mark does not say),
 * or `undefined` when it holds no mark. A directory that cannot be read is named, with `doing`
 * (what was to be done: "start the relayer").
 */
export async function movedOn(dataDir: string, doing: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dataDir}/${MOVED_FILE}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    // Not a mark: the directory itself cannot be used (a file, a folder it may not read).
    const why = error instanceof Deno.errors.NotADirectory
      ? "it is a file, not a folder"
      : (error as Error).message;
    throw new SvcError("bad_request", `Cannot ${doing} on ${dataDir} (SVC_DATA_DIR): ${why}`);
  }
  let at: unknown;
  try {
    at = JSON.parse(text)?.at;
  } catch { /* a damaged mark is a mark all the same */ }
  return typeof at === "string" ? ` on ${at.slice(0, 10)}` : "";
}

/**
 * Refuses `dataDir` once `svc migrate-store` has copied it into PostgreSQL: served too, or
 * written by the ledger commands, it would part from the database, and an erase made there
 * would not reach its keys and blobs. `doing`: what was to be done ("start the relayer").
 */
export async function checkNotMoved(dataDir: string, doing: string): Promise<void> {
  const when = await movedOn(dataDir, doing);
  if (when === undefined) return;
  throw new SvcError(
    "conflict",
    `Cannot ${doing} on ${dataDir}: svc migrate-store copied it into PostgreSQL${when}; use ` +
      "the database (SVC_STORE=postgres, SVC_DATABASE_URL, SVC_MASTER_KEY), and retire this " +
      "directory once the copy serves: an erase made in the database does not reach it. To " +
      `serve this directory instead, delete ${dataDir}/${MOVED_FILE}`,
  );
}
