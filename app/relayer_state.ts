/**
 * The relayer's state outside its backends: jobs, replay claims, lifecycle records, the access
 * log and the reindex's cursors, in the data directory's `jobs.kv` or in the shared database.
 * With `jobs.kv`, the data directory's key store (`keys.sqlite`) is opened here too: the job
 * queue keeps its texts' keys in it, and the local cipher its memories' keys.
 */
import type { Database } from "@svc/postgres";
import type { SqliteKeyStore } from "@svc/local-cipher/key_store";
import { pathExists } from "@svc/util/files";
import { KvStateStore, openKvStores } from "@svc/denokv";
import { StateUpdateClaims } from "@svc/relayer/stored";
import type { Logger } from "@svc/relayer/kit";
import type { RelayerOptions } from "@svc/relayer";
import { ReindexState } from "@svc/relayer/reindex";
import { scrubSqlite } from "@svc/util/scrub";
import type { Config } from "./config.ts";
import { postgresPlugin } from "./database.ts";
import { checkKeyStore, KEY_STORE_FILE, openKeyStore } from "./key_store_record.ts";

/**
 * The stores of the relayer's state: in the data directory's `jobs.kv`, or in the shared
 * database with `SVC_STORE=postgres` (which adds the update and text claims).
 */
export type SharedState = Pick<
  RelayerOptions,
  "queue" | "replayGuard" | "state" | "jobTextKeys" | "updateClaims" | "textClaims"
>;

/** The relayer's state, opened; `close` releases what was opened for it. */
export interface RelayerState {
  /** The data directory's `jobs.kv`, unless the state is in the shared database. */
  kv?: Deno.Kv;
  /**
   * The data directory's key store, with `kv`: the caller closes it (after the cipher that
   * shares it), `close` does not.
   */
  keyStore?: SqliteKeyStore;
  shared: SharedState;
  reindex: ReindexState;
  close(): Promise<void>;
}

/** The key store of the data directory, once the local cipher's record of it is checked. */
async function openDataKeyStore(
  config: Config,
  kv: Deno.Kv,
  logger: Logger,
): Promise<SqliteKeyStore> {
  const local = config.cipher.kind === "local" ? config.cipher : undefined;
  if (local && await checkKeyStore(kv, config.dataDir, local.keysLost)) {
    logger.warn(
      `${KEY_STORE_FILE} is missing (SVC_KEYS_LOST=1): the memories stored before cannot be ` +
        "read; a new one is made",
      { data_dir: config.dataDir },
    );
  }
  return await openKeyStore(config.dataDir);
}

/**
 * Where jobs, replay claims, lifecycle records, the access log and the reindex's cursors live:
 * the data directory's `jobs.kv` (the relayer's defaults), or the shared database.
 */
export async function openState(
  config: Config,
  secret: Uint8Array<ArrayBuffer>,
  database: Database | undefined,
  logger: Logger,
): Promise<RelayerState> {
  const limits = { maxAttempts: config.maxAttempts, leaseMs: config.jobLeaseSeconds * 1000 };
  if (!database) {
    const path = `${config.dataDir}/jobs.kv`;
    // What the jobs kept of memories since erased (the ciphertext a job keeps for its retries)
    // is wiped here, while no other connection has the file open: not while the relayer runs,
    // as Deno KV's commits would then fail.
    if (await pathExists(path)) {
      // Not a reason to refuse the start (a full disk has no room for the copy): said, and left.
      await scrubSqlite(path).catch((error) =>
        logger.warn("cannot wipe what jobs.kv keeps of deleted entries", { error })
      );
    }
    const kv = await Deno.openKv(path);
    let keyStore: SqliteKeyStore | undefined;
    try {
      keyStore = await openDataKeyStore(config, kv, logger);
      const state = new KvStateStore(kv);
      const reindex = await ReindexState.open(state, secret);
      const shared = await openKvStores(kv, secret, { keyStore, ...limits });
      return { kv, keyStore, shared, reindex, close: () => Promise.resolve(kv.close()) };
    } catch (error) {
      kv.close();
      await keyStore?.close();
      throw error;
    }
  }
  const plugin = await postgresPlugin();
  const state = new plugin.PgStateStore(database);
  const queue = await plugin.PgJobQueue.open(database, secret, limits);
  const replayGuard = new plugin.PgReplayGuard(database);
  return {
    shared: {
      queue,
      replayGuard,
      state,
      updateClaims: await StateUpdateClaims.open(state, secret),
      textClaims: await plugin.PgTextClaims.open(database, secret),
    },
    reindex: await ReindexState.open(state, secret),
    async close() {
      await queue.close();
      await replayGuard.close();
    },
  };
}
