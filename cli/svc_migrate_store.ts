/**
 * `svc migrate-store --to postgres`: copies the data directory `SVC_DATA_DIR` (its relayer
 * stopped) into the database `SVC_DATABASE_URL`, with a progress bar per phase on stderr; run
 * again after an interruption, it resumes (see `app/store_migration.ts`). `--to sqlite`
 * moves the blob files an earlier version wrote into the data directory's SQLite blob store
 * instead, as the relayer does at start. The master key is the data directory's, read from its
 * key file (`SVC_MASTER_KEY` when set must be the same), and never printed.
 */
import { loadMasterKey, lockIndex, masterKeyFileOf, masterKeyPath } from "@svc/app";
import { migrateStore, PHASE_UNITS, type StoreMigrationSummary } from "@svc/app/store_migration";
import { moveBlobsToSqlite, UNMOVABLE } from "@svc/upgrades";
import { Database } from "@svc/postgres/database";
import { SvcError } from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";
import { ProgressBar } from "./progress.ts";
import { writeLine } from "./io.ts";
import { UsageError } from "./client_flags.ts";
import { type Output } from "./svc_memories.ts";
import { checkRelayerData, configOf } from "./svc_store.ts";
import type { Invocation } from "./svc_command_line.ts";

export const MIGRATE_STORE_USAGE =
  `Moving (reads SVC_DATA_DIR, SVC_DATABASE_URL, SVC_MASTER_KEY; the relayer stopped):
  migrate-store --to postgres            copy the data directory's state into the database
                                         (resumes where an interrupted run stopped)
  migrate-store --to sqlite              move the blob files of an earlier version (blobs/objects)
                                         into blobs/blobs.sqlite (finishes an interrupted run)`;

/** Refuses a data directory that is not there, or one of no relayer's. */
async function checkDataDir(dataDir: string): Promise<void> {
  const info = await Deno.stat(dataDir).catch(() => null);
  if (!info?.isDirectory) {
    throw new UsageError(`there is no data directory ${dataDir} (SVC_DATA_DIR)`);
  }
  await checkRelayerData(dataDir, "of the relayer to migrate");
}

/**
 * The data directory's master key (from its key file, `SVC_MASTER_KEY_FILE` or the keys
 * directory), checked against `SVC_MASTER_KEY` when that is set; and the key file.
 */
async function masterKeyOf(
  dataDir: string,
  env: Record<string, string | undefined>,
): Promise<{ key: string; file: string }> {
  const source = masterKeyFileOf(env, dataDir);
  const file = await masterKeyPath(dataDir, source);
  const configured = env.SVC_MASTER_KEY || undefined;
  // A directory that always ran with SVC_MASTER_KEY has no key file: none is made for it.
  if (configured && !await pathExists(file) && !await pathExists(`${dataDir}/master.key`)) {
    return { key: configured, file };
  }
  const key = (await loadMasterKey(dataDir, source)).toHex();
  if (configured !== undefined && configured !== key) {
    throw new SvcError(
      "conflict",
      `SVC_MASTER_KEY is not the master key of ${dataDir} (${file}): the data directory's ` +
        "memories open only with its own key. Unset SVC_MASTER_KEY, or set it to that key",
    );
  }
  return { key, file };
}

function describe(
  summary: StoreMigrationSummary,
  keyFile: string | undefined,
  dataDir: string,
): string {
  const { copied } = summary;
  const lines = [
    `${summary.done ? "Already copied, by earlier runs (nothing was copied again)" : "Copied"}: ` +
    `${copied.ledger} accounts, ${copied.keys} memory keys, ${copied.blobs} blobs, ` +
    `${copied.index} index namespaces${summary.index ? ` (index "${summary.index}")` : ""}, ` +
    `${copied.jobs} jobs, ${copied.lifecycle} lifecycle records, ${copied.access_log} ` +
    `access-log records and ${copied.replay} replay claims into the database` +
    `${summary.resumed && !summary.done ? ", resuming an earlier run" : ""}.`,
    `${dataDir} is marked as copied: relayers and svc refuse it without SVC_STORE=postgres. ` +
    "Retire it once the database serves (an erase made there does not reach it).",
  ];
  if (keyFile) {
    lines.push(
      `Start every relayer with SVC_MASTER_KEY set to the key in ${keyFile} ` +
        "(and SVC_STORE=postgres, SVC_DATABASE_URL).",
    );
  }
  lines.push(`Owner keys stay in ${dataDir}/owner_keys, where the CLI reads them.`);
  return lines.join("\n");
}

/** What the CLI says of the blobs it could not move, if any. */
function unmovableText(unmovable: string[]): string {
  if (unmovable.length === 0) return "";
  return `${unmovable.length} could not be moved (${UNMOVABLE}); their files stay in blobs/: ` +
    `${unmovable.slice(0, 10).join(", ")}${unmovable.length > 10 ? ", …" : ""}. `;
}

/** `svc migrate-store --to sqlite`: an earlier version's blob files into `blobs/blobs.sqlite`. */
async function moveBlobs(dataDir: string, masterKey: string): Promise<Output> {
  const result = await moveBlobsToSqlite(dataDir, Uint8Array.fromHex(masterKey));
  const { moved = 0, unmovable = [] } = result ?? {};
  return {
    json: { status: "moved", blobs: moved, unmovable, dataDir },
    text: result === null
      ? `No blob files in ${dataDir}/blobs: nothing to move.`
      : `Moved ${moved} blobs into ${dataDir}/blobs/blobs.sqlite` +
        (moved === 0 && unmovable.length === 0 ? " (none were left to move)" : "") +
        " and deleted their files. " + unmovableText(unmovable) +
        "Start the relayer without SVC_BLOB_STORE (or with SVC_BLOB_STORE=sqlite).",
  };
}

/** `svc migrate-store --to TARGET`. */
export async function runMigrateStore(
  { flags: { to }, io: { env, stderr } }: Invocation,
): Promise<Output> {
  if (to !== "postgres" && to !== "sqlite") {
    throw new UsageError("migrate-store needs --to postgres or --to sqlite");
  }
  const dataDir = env.SVC_DATA_DIR ?? "./data";
  await checkDataDir(dataDir);
  // The relayer stopped: nothing else reads or writes the data directory meanwhile (its master
  // key may be moved out of it first).
  const lock = await lockIndex(
    dataDir,
    to === "sqlite" ? "move the blobs" : "copy the data directory",
  );
  try {
    return await migrate(to, dataDir, env, stderr);
  } finally {
    lock.release();
  }
}

/** `runMigrateStore`'s work, under the data directory's lock. */
async function migrate(
  to: "postgres" | "sqlite",
  dataDir: string,
  env: Invocation["io"]["env"],
  stderr: Invocation["io"]["stderr"],
): Promise<Output> {
  const { key: masterKey, file: keyFile } = await masterKeyOf(dataDir, env);
  if (to === "sqlite") return await moveBlobs(dataDir, masterKey);
  const config = configOf({ ...env, SVC_STORE: "postgres", SVC_MASTER_KEY: masterKey });
  if (config.store.kind !== "postgres") throw new UsageError("migrate-store needs SVC_STORE");
  const terminal = stderr.isTerminal();
  let bar: ProgressBar | undefined;
  let barPhase = "";
  const database = await Database.open({ url: config.store.url, pool: 4 });
  try {
    const summary = await migrateStore({
      config,
      database,
      secret: Uint8Array.fromHex(masterKey),
      onProgress({ phase, done, total }) {
        if (phase !== barPhase) {
          bar?.finish();
          bar = new ProgressBar(stderr, phase.padEnd(10), { unit: PHASE_UNITS[phase] });
          barPhase = phase;
        }
        bar!.update(done, total);
      },
      onPhase(phase, count, skipped) {
        bar?.finish();
        bar = undefined;
        barPhase = "";
        // Without a terminal (logs, pipes), a line per phase instead of a bar.
        if (!terminal) {
          const what = skipped ? "copied by an earlier run" : "copied";
          writeLine(stderr, `migrate-store: ${phase}: ${count} ${PHASE_UNITS[phase]} ${what}`);
        }
      },
    });
    return {
      json: { status: summary.done ? "already copied" : "copied", ...summary, dataDir },
      text: describe(summary, env.SVC_MASTER_KEY ? undefined : keyFile, dataDir),
    };
  } finally {
    bar?.finish();
    await database.close();
  }
}
