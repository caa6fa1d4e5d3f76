/**
 * The marks `svc migrate-store --to postgres` leaves in the data directory it copies: one while
 * the copy is under way (`MOVING_FILE`, naming the copy), one once it is done (`MOVED_FILE`); and
 * the refusal to use that directory while either is there (see {@link checkNotMoved}).
 */
import { SvcError } from "@svc/relayer/kit";
import { writeWhole } from "@svc/util/files";

export const MOVED_FILE = "moved-to-postgres.json";
export const MOVING_FILE = "moving-to-postgres.json";

/** What a mark says: when it was made (ISO 8601), and for a copy under way, which copy. */
interface Mark {
  at?: string;
  copy?: string;
}

/** Marks `dataDir` as being copied into PostgreSQL now; resolves to the copy's id. */
export async function markMoving(dataDir: string): Promise<string> {
  const copy = crypto.randomUUID();
  await writeMark(`${dataDir}/${MOVING_FILE}`, { copy });
  return copy;
}

/**
 * Marks `dataDir` as copied into PostgreSQL (now) by the copy `copy` (none for one an earlier
 * version began), which is done.
 */
export async function markMoved(dataDir: string, copy?: string): Promise<void> {
  await writeMark(`${dataDir}/${MOVED_FILE}`, { copy });
  await Deno.remove(`${dataDir}/${MOVING_FILE}`).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

async function writeMark(path: string, mark: Mark): Promise<void> {
  await writeWhole(
    path,
    JSON.stringify({ to: "postgres", at: new Date().toISOString(), ...mark }) + "\n",
  );
}

/**
 * The mark `name` in `dataDir` (a damaged one says nothing but that it is there), or `undefined`
 * when there is none. A directory that cannot be read is named, with `doing` (what was to be
 * done: "start the relayer").
 */
export async function readMark(
  dataDir: string,
  name: string,
  doing: string,
): Promise<Mark | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dataDir}/${name}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    // Not a mark: the directory itself cannot be used (a file, a folder it may not read).
    const why = error instanceof Deno.errors.NotADirectory
      ? "it is a file, not a folder"
      : (error as Error).message;
    throw new SvcError("bad_request", `Cannot ${doing} on ${dataDir} (SVC_DATA_DIR): ${why}`);
  }
  try {
    const { at, copy } = JSON.parse(text) ?? {};
    return {
      at: typeof at === "string" ? at : undefined,
      copy: typeof copy === "string" ? copy : undefined,
    };
  } catch {
    return {};
  }
}

/** " on 2026-11-26", or "" when `mark` does not say when it was made. */
export function onDay(mark: Mark): string {
  return mark.at ? ` on ${mark.at.slice(0, 10)}` : "";
}

/**
 * Refuses `dataDir` while `svc migrate-store` copies it into PostgreSQL, and once it has: served
 * too, or written by the ledger commands, it would part from the database (a copy resumed would
 * miss what changed, and bring back what was erased), and an erase made there would not reach
 * its keys and blobs. `doing`: what was to be done ("start the relayer").
 */
export async function checkNotMoved(dataDir: string, doing: string): Promise<void> {
  const moved = await readMark(dataDir, MOVED_FILE, doing);
  if (moved) {
    throw new SvcError(
      "conflict",
      `Cannot ${doing} on ${dataDir}: svc migrate-store copied it into PostgreSQL` +
        `${onDay(moved)}; use the database (SVC_STORE=postgres, SVC_DATABASE_URL, ` +
        "SVC_MASTER_KEY), and retire this directory once the copy serves: an erase made in the " +
        `database does not reach it. To serve this directory instead, delete ${dataDir}/${MOVED_FILE}`,
    );
  }
  const moving = await readMark(dataDir, MOVING_FILE, doing);
  if (moving) {
    throw new SvcError(
      "conflict",
      `Cannot ${doing} on ${dataDir}: svc migrate-store began copying it into PostgreSQL` +
        `${onDay(moving)} and has not finished; run it again, which finishes the copy. To serve ` +
        `this directory instead, delete ${dataDir}/${MOVING_FILE}: that copy can then not be ` +
        "finished, and a new one needs a new, empty database",
    );
  }
}
