/**
 * `svc migrate`: brings the PostgreSQL schema of `SVC_DATABASE_URL` up to date, as a relayer
 * does at start (under the same advisory lock, so it is safe while relayers run), and reports
 * the versions. Like a relayer, it refuses a master key other than the database's, and on a
 * database no relayer has opened yet it records the key it was given, as a relayer's first start
 * does.
 *
 * `svc upgrade`: runs the upgrades a relayer runs at start (`@svc/upgrades`) on the data
 * directory, with the relayer stopped, or on the shared database, and says what each did.
 */
import { type Config, loadMasterKey, lockIndex, readConfig } from "@svc/app";
import { upgrade, type UpgradeDone } from "@svc/upgrades";
import { pathExists } from "@svc/util/files";
import { Database } from "@svc/postgres/database";
import { openPgLedger } from "@svc/postgres/ledger";
import { schemaVersion } from "@svc/postgres/migrations";
import { refuseUnfinishedCopy } from "@svc/postgres/store_import";
import { UsageError } from "./client_flags.ts";
import { type Output } from "./svc_memories.ts";
import type { Invocation } from "./svc_command_line.ts";

export const STORE_USAGE = `Store (reads SVC_STORE, SVC_DATABASE_URL, SVC_MASTER_KEY):
  migrate                                bring the PostgreSQL schema up to date (safe while
                                         relayers run; they also do it at start)
  upgrade                                bring what an earlier version left in SVC_DATA_DIR (the
                                         relayer stopped) or the database to this version's form
                                         (a relayer also does it at start)`;

/** The relayer's configuration in `env`; what is wrong with it is a usage error. */
export function configOf(env: Record<string, string | undefined>): Config {
  const result = readConfig(env);
  if (!result.ok) throw new UsageError(result.problems.join("\n"));
  return result.config;
}

/** The PostgreSQL URL and master key of the configuration, or a usage error saying why not. */
function databaseOf({ store, masterKey }: Config) {
  if (store.kind !== "postgres") {
    throw new UsageError(
      "migrate works on PostgreSQL: set SVC_STORE=postgres and SVC_DATABASE_URL",
    );
  }
  // With SVC_STORE=postgres the configuration requires the key.
  return { url: store.url, masterKey: Uint8Array.fromHex(masterKey.hex!) };
}

/**
 * Runs `use` on the database of `config`, opened as a relayer opens it: refusing a copy half
 * done, and a master key other than the one the database was written under.
 */
async function withDatabase<T>(
  config: Config,
  use: (database: Database, masterKey: Uint8Array<ArrayBuffer>) => Promise<T>,
) {
  const { url, masterKey } = databaseOf(config);
  const database = await Database.open({ url, pool: 1 });
  try {
    await refuseUnfinishedCopy(database);
    await openPgLedger(database, masterKey);
    return await use(database, masterKey);
  } finally {
    await database.close();
  }
}

/** `svc migrate`. */
export async function runMigrate({ io: { env } }: Invocation): Promise<Output> {
  const config = configOf(env);
  const before = await Database.open({ url: databaseOf(config).url, pool: 1, migrate: false });
  let from: number;
  try {
    from = await schemaVersion(before.sql);
  } finally {
    await before.close();
  }
  const to = await withDatabase(config, (database) => schemaVersion(database.sql));
  return {
    json: { from, to },
    text: from === to
      ? `The schema is up to date (version ${to}).`
      : `Migrated the schema from version ${from} to ${to}.`,
  };
}

/** `svc upgrade`: the data directory's upgrades (or the database's), as a start runs them. */
export async function runUpgrade({ io: { env } }: Invocation): Promise<Output> {
  const config = configOf(env);
  const { dataDir } = config;
  const done = config.store.kind === "postgres"
    ? await withDatabase(config, (database, secret) => upgrade({ dataDir, secret, database }))
    : await upgradeDataDir(config);
  const moved = done.filter((step) => step.moved > 0);
  const where = config.store.kind === "postgres" ? "the database" : dataDir;
  return {
    json: { upgrades: done },
    text: moved.length === 0
      ? `Nothing to upgrade in ${where}.`
      : `Upgraded ${where}: ` + moved.map(({ name, moved }) => `${name} (${moved})`).join(", ") +
        ".",
  };
}

/**
 * Refuses a data directory that holds no relayer's data: every relayer on the embedded store
 * keeps its jobs in `jobs.kv`. `which`: the data directory to set SVC_DATA_DIR to.
 */
export async function checkRelayerData(dataDir: string, which: string): Promise<void> {
  if (!await pathExists(`${dataDir}/jobs.kv`)) {
    throw new UsageError(
      `${dataDir} holds no relayer's data (it has no jobs.kv): set SVC_DATA_DIR to the data ` +
        `directory ${which}`,
    );
  }
}

async function upgradeDataDir(config: Config): Promise<UpgradeDone[]> {
  const { dataDir } = config;
  // No key is made for another's directory.
  await checkRelayerData(dataDir, "to upgrade");
  const lock = await lockIndex(dataDir, "upgrade the data directory");
  try {
    const secret = await loadMasterKey(dataDir, config.masterKey);
    return await upgrade({ dataDir, secret, localBlobs: config.blobStore.kind === "sqlite" });
  } finally {
    lock.release();
  }
}
