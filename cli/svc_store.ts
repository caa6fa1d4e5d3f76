/**
 * `svc migrate`: brings the PostgreSQL schema of `SVC_DATABASE_URL` up to date, as a relayer
 * does at start (under the same advisory lock, so it is safe while relayers run), and reports
 * the versions. Like a relayer, it refuses a master key other than the database's, and on a
 * database no relayer has opened yet it records the key it was given, as a relayer's first start
 * does.
 */
import { readConfig } from "@svc/app";
import { Database } from "@svc/postgres/database";
import { PgLedgerStore } from "@svc/postgres/ledger_store";
import { schemaVersion } from "@svc/postgres/migrations";
import { refuseUnfinishedCopy } from "@svc/postgres/store_import";
import { UsageError } from "./client_flags.ts";
import { type Output } from "./svc_memories.ts";

export const STORE_USAGE = `Store (reads SVC_STORE, SVC_DATABASE_URL, SVC_MASTER_KEY):
  migrate                                bring the PostgreSQL schema up to date (safe while
                                         relayers run; they also do it at start)`;

/** The PostgreSQL URL and master key of the configuration, or a usage error saying why not. */
function databaseOf(env: Record<string, string | undefined>) {
  const result = readConfig(env);
  if (!result.ok) throw new UsageError(result.problems.join("\n"));
  const { store, masterKey } = result.config;
  if (store.kind !== "postgres") {
    throw new UsageError(
      "migrate works on PostgreSQL: set SVC_STORE=postgres and SVC_DATABASE_URL",
    );
  }
  // With SVC_STORE=postgres the configuration requires the key.
  return { url: store.url, masterKey: Uint8Array.fromHex(masterKey.hex!) };
}

/** `svc migrate`. */
export async function runMigrate(env: Record<string, string | undefined>): Promise<Output> {
  const { url, masterKey } = databaseOf(env);
  const before = await Database.open({ url, pool: 1, migrate: false });
  let from: number;
  try {
    from = await schemaVersion(before.sql);
  } finally {
    await before.close();
  }
  const database = await Database.open({ url, pool: 1 });
  try {
    // Refuses a copy half done, and a key other than the one the database was written under,
    // as a relayer does.
    await refuseUnfinishedCopy(database);
    await PgLedgerStore.open({ database, masterKey });
    const to = await schemaVersion(database.sql);
    return {
      json: { from, to },
      text: from === to
        ? `The schema is up to date (version ${to}).`
        : `Migrated the schema from version ${from} to ${to}.`,
    };
  } finally {
    await database.close();
  }
}
