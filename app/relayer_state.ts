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
import { sealStoredRecords, StateLifecycleRecords, StateUpdateClaims } from "@svc/relayer/stored";
import { type Logger, type StateStore, SvcError } from "@svc/relayer/kit";
import type { RelayerOptions } from "@svc/relayer";
import { ReindexState, type ReindexStateStore } from "@svc/relayer/reindex";
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
  reindex: ReindexStateStore;
  close(): Promise<void>;
}

/**
 * Seals what an earlier version kept in clear in the Deno KV at `path` (job records and dead
 * letters; the lifecycle records are `tagErasedOwners`'); resolves to how many entries.
 */
async function sealKeptInClear(path: string, secret: Uint8Array<ArrayBuffer>): Promise<number> {
  const kv = await Deno.openKv(path);
  try {
    if ((await kv.get(SEALED_MARK)).versionstamp !== null) return 0;
    const sealed = await sealStoredRecords(new KvStateStore(kv), secret);
    await kv.set(SEALED_MARK, true);
    return sealed;
  } finally {
    kv.close();
  }
}

/**
 * The key store of the data directory, opened once the local cipher's record of it is checked
 * (`checkKeyStore`: a lost one is refused, unless `SVC_KEYS_LOST=1`). A Seal cipher keeps no
 * key there; the job queue's texts' keys are there whatever the cipher.
 */
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

/** Set in `jobs.kv` once what earlier versions kept in clear there has been sealed. */
const SEALED_MARK = ["at_rest", "names_sealed"];
/**
 * Set in `jobs.kv` once the lifecycle records are sealed: every erased memory filed under its
 * owner's keyed hash, every expiry's owner and namespace sealed.
 */
const TAGGED_MARK = ["at_rest", "erased_owners_tagged"];

/**
 * Seals the lifecycle records an earlier version kept in clear, once (`TAGGED_MARK`): an erased
 * memory filed under its owner's address goes under its keyed hash, where it is looked for, so a
 * failure refuses the start.
 */
async function tagErasedOwners(
  state: StateStore,
  secret: Uint8Array<ArrayBuffer>,
  logger: Logger,
): Promise<void> {
  if (await state.get(TAGGED_MARK)) return;
  let moved: number;
  try {
    moved = await new StateLifecycleRecords(state, secret).sealStored();
    await state.set(TAGGED_MARK, true);
  } catch (error) {
    throw new SvcError(
      "backend_unavailable",
      `Cannot start: jobs.kv's erased memories could not be filed under keyed hashes (${
        (error as Error).message
      })`,
      { cause: error },
    );
  }
  if (moved > 0) logger.info("jobs.kv files erased memories under keyed hashes", { moved });
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
  if (!database) {
    const path = `${config.dataDir}/jobs.kv`;
    // What the jobs kept of memories since erased (the ciphertext a job keeps for its retries)
    // is wiped here, while no other connection has the file open: not while the relayer runs,
    // as Deno KV's commits would then fail.
    if (await pathExists(path)) {
      // Said, and tried again at the next start: not a reason to refuse this one.
      const sealed = await sealKeptInClear(path, secret).catch((error) => {
        logger.warn("cannot seal what jobs.kv keeps in clear; the next start tries again", {
          error,
        });
        return 0;
      });
      if (sealed > 0) {
        logger.info("jobs.kv no longer names namespaces or errors: sealed them", {
          records: sealed,
        });
      }
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
      await tagErasedOwners(state, secret, logger);
      const reindex = await ReindexState.open(state, secret);
      const shared = await openKvStores(kv, secret, {
        keyStore,
        maxAttempts: config.maxAttempts,
        leaseMs: config.jobLeaseSeconds * 1000,
      });
      return { kv, keyStore, shared, reindex, close: () => Promise.resolve(kv.close()) };
    } catch (error) {
      kv.close();
      await keyStore?.close();
      throw error;
    }
  }
  const plugin = await postgresPlugin();
  const moved = await plugin.moveIntoState(database);
  if (moved > 0) logger.info("the relayer's state moved into svc_state", { rows: moved });
  const state = new plugin.PgStateStore(database);
  const queue = await plugin.PgJobQueue.open(database, secret, {
    maxAttempts: config.maxAttempts,
    leaseMs: config.jobLeaseSeconds * 1000,
  });
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
