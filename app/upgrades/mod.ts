/**
 * The upgrades of what earlier versions left in a data directory or a shared database, brought to
 * this version's form. The relayer runs them at start, before its stores open; `svc upgrade` runs
 * them with the relayer stopped. Each finds its own work: run again, it does nothing. One cut
 * short is finished by the next run.
 *
 * | upgrade | what it does |
 * | --- | --- |
 * | `keys.kv` | the local cipher's keys of a Deno KV file moved into `keys.sqlite` |
 * | `jobs.kv records` | job records and dead letters that named namespaces and errors, sealed |
 * | `jobs.kv erases` | erased memories filed under their owner's keyed hash |
 * | `blob files` | `blobs/objects` moved into `blobs/blobs.sqlite` |
 * | `svc_state` | a shared database's earlier tables moved into `svc_state` |
 *
 * Two more run as their stores open: a `master.key` inside the data directory moves out with the
 * master key's loading, and a LanceDB index is imported into the encrypted index (it needs the
 * embedder).
 *
 * @example
 * ```ts ignore
 * const done = await upgrade({ dataDir: "./data", secret });
 * // [{ name: "blob files", moved: 120 }, ...]
 * ```
 * @module
 */
import type { Database } from "@svc/postgres";
import type { Logger } from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";
import { moveBlobsToSqlite, UNMOVABLE } from "./blob_files.ts";
import { sealJobRecords, tagErasedOwners } from "./jobs_kv.ts";

export {
  type BlobFilesMoved,
  keptMeta,
  moveBlobFiles,
  moveBlobsToSqlite,
  UNMOVABLE,
} from "./blob_files.ts";
export { LegacyBlobFiles } from "./legacy_blob_files.ts";

/** What an upgrade works on: a data directory, or the shared database. */
export interface UpgradeTarget {
  /** The data directory (its files are upgraded unless `database` is given). */
  dataDir: string;
  /** The relayer's 32-byte secret, which the upgraded entries are sealed under. */
  secret: Uint8Array<ArrayBuffer>;
  /** The shared database, for a relayer whose state is in PostgreSQL. */
  database?: Database;
  /** Whether blobs are kept in the data directory (`SVC_BLOB_STORE=sqlite`, the default). */
  localBlobs?: boolean;
  /** Where the upgrades say what they did (nothing by default). */
  logger?: Logger;
}

/** An upgrade: its name, and how many entries it moved or sealed. */
export interface UpgradeDone {
  name: string;
  moved: number;
}

/** One upgrade: its name, and what it does to a target (how many entries it moved or sealed). */
interface Upgrade {
  name: string;
  /** Whether it works on the data directory's files or on the shared database. */
  on: "files" | "database";
  /** A failure is said and tried again at the next run, not a reason to refuse a start. */
  optional?: boolean;
  run(target: UpgradeTarget): Promise<number>;
}

const UPGRADES: Upgrade[] = [
  { name: "keys.kv", on: "files", run: ({ dataDir }) => moveKvKeys(dataDir) },
  {
    name: "jobs.kv records",
    on: "files",
    optional: true,
    run: ({ dataDir, secret }) => sealJobRecords(dataDir, secret),
  },
  {
    name: "jobs.kv erases",
    on: "files",
    run: ({ dataDir, secret }) => tagErasedOwners(dataDir, secret),
  },
  { name: "blob files", on: "files", run: moveBlobFilesOf },
  {
    name: "svc_state",
    on: "database",
    run: async ({ database }) => await (await import("./state_moves.ts")).moveIntoState(database!),
  },
];

/** Runs every upgrade of `target`, in order; what each did. */
export async function upgrade(target: UpgradeTarget): Promise<UpgradeDone[]> {
  const on = target.database ? "database" : "files";
  const done: UpgradeDone[] = [];
  for (const { name, run, optional } of UPGRADES.filter((upgrade) => upgrade.on === on)) {
    const moved = await run(target).catch((error) => {
      if (!optional) throw error;
      target.logger?.warn("cannot upgrade; the next start tries again", { name, error });
      return 0;
    });
    if (moved > 0) target.logger?.info("upgraded what an earlier version left", { name, moved });
    done.push({ name, moved });
  }
  return done;
}

/**
 * The local cipher's keys of an earlier version's `keys.kv` (or what a move cut short left of
 * it) moved into `keys.sqlite`. Without one, `keys.sqlite` is not made here: a lost key store
 * must still be found missing.
 */
async function moveKvKeys(dataDir: string): Promise<number> {
  const old = `${dataDir}/keys.kv`;
  const left = await Promise.all([old, `${old}-wal`, `${old}-shm`].map((path) => pathExists(path)));
  if (!left.some(Boolean)) return 0;
  const { importKvKeys, SqliteKeyStore } = await import("@svc/local-cipher/key_store");
  const store = await SqliteKeyStore.open(`${dataDir}/keys.sqlite`);
  try {
    return await importKvKeys(old, store);
  } finally {
    await store.close();
  }
}

/** The blob files of an earlier version moved into `blobs/blobs.sqlite`; those that cannot stay. */
async function moveBlobFilesOf(target: UpgradeTarget): Promise<number> {
  const { dataDir, secret, logger, localBlobs = true } = target;
  if (!localBlobs) return 0;
  const moved = await moveBlobsToSqlite(dataDir, secret);
  if (moved && moved.unmovable.length > 0) {
    logger?.warn(`blob files that cannot be moved stay in blobs/ (${UNMOVABLE})`, {
      blobs: moved.unmovable.length,
      blob_ids: moved.unmovable.slice(0, 10),
    });
  }
  return moved?.moved ?? 0;
}
