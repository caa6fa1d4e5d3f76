/**
 * `svc migrate-store --to postgres`: copies a data directory's state into the shared PostgreSQL
 * database, as it is, without re-encrypting anything (the relayer stopped; the CLI holds the
 * data directory's `index.lock`). Phases, in order, each recorded in the database once finished
 * (`ImportProgress`) and skipped when the copy runs again; a phase cut short is run again whole,
 * its inserts idempotent, so nothing is duplicated. The data directory is marked while the copy
 * is under way and once it is done (`moved.ts`): neither is served, so a copy resumed misses
 * nothing:
 *
 * - `ledger`: accounts and delegate keys (`ledger.kv`);
 * - `keys`: the local cipher's wrapped data keys (`keys.sqlite`), wrapped bytes as they are;
 * - `blobs`: ciphertext blobs (`blobs/`, either local store), ids kept; a legacy clear `vector`
 *   in a blob's metadata is sealed with `VectorSeal` on the way, so nothing is in clear in the
 *   database;
 * - `index`: the active encrypted index (`index.active` names it; `index.sqlite` by default): its
 *   meta, namespace headers, sealed blocks and memory locations, under the same index name;
 * - `jobs`: job records with their sealed texts and saved ciphertexts, and dead letters;
 * - `lifecycle`: erased memories and the expiry schedule;
 * - `access_log`: the sealed access-log records;
 * - `blind`: operator-blind namespaces, their logs and wrapped content keys as they are;
 * - `replay`: replay claims still alive.
 *
 * `svc migrate-store --to sqlite` moves the blob files of an earlier version into the data
 * directory's SQLite blob store instead ({@link moveBlobsToSqlite}), as the relayer does at start.
 */
import { KvLedgerStore } from "@svc/local-ledger/kv_store";
import { copyIndex, hasIndexFile, openIndexFile } from "@svc/encrypted-index/index_file";
import { readActiveIndex } from "@svc/encrypted-index/active_pointer";
import {
  COPY_PHASES as PHASES,
  copyDone,
  type CopyPhase as Phase,
  copySource,
  type Database,
  holdsState,
  importDeadLetters,
  importJobs,
  ImportProgress,
  importReplayClaims,
  openPgLedger,
  PgBlobStore,
  PgBlockStorage,
  PgIndexSet,
  PgKeyStore,
  PgStateStore,
} from "@svc/postgres";
import { type StateKey, SvcError } from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";
import { checkKeyStore, hasKeyStore, openKeyStore } from "./key_store_record.ts";
import { markMoved, markMoving, MOVED_FILE, MOVING_FILE, onDay, readMark } from "./moved.ts";
import { KvStateStore } from "@svc/denokv";
import { JobSeal, liveClaims, StateLifecycleRecords } from "@svc/relayer/stored";
import { deadLetters, storedJobs } from "./job_export.ts";
import type { Config } from "./config.ts";
import { BATCH, copyAll, copyLocalBlobs } from "./store_copy.ts";
import { upgrade } from "@svc/upgrades";
import { batches, type Tell } from "@svc/util/batches";

/** What a phase copies, as the progress bar names it. */
export const PHASE_UNITS: Record<Phase, string> = {
  ledger: "accounts",
  keys: "keys",
  blobs: "blobs",
  index: "namespaces",
  jobs: "jobs",
  lifecycle: "records",
  access_log: "records",
  blind: "records",
  replay: "claims",
};

/** Where a copy is: `done` of `total` items of `phase`. */
export interface CopyProgress {
  phase: Phase;
  done: number;
  total: number;
}

/** What `migrateStore` needs. */
export interface StoreMigrationOptions {
  /** The configuration (`SVC_STORE=postgres`), whose `dataDir` is the source. */
  config: Config;
  /** The target, migrated. */
  database: Database;
  /** The data directory's master key, which every relayer on the database will hold. */
  secret: Uint8Array<ArrayBuffer>;
  /** Told of each item copied. */
  onProgress?(progress: CopyProgress): void;
  /** Told of each phase finished (`skipped`: finished by an earlier run). */
  onPhase?(phase: Phase, count: number, skipped: boolean): void;
}

/** What a copy did: items copied per phase, and the active index's name. */
export interface StoreMigrationSummary {
  copied: Record<Phase, number>;
  resumed: boolean;
  /** Whether every phase was done by earlier runs: this one copied nothing. */
  done: boolean;
  index: string | null;
}

/** Opens the data directory's Deno KV file `name` when it exists, and closes it after `use`. */
async function withKv<T>(
  dir: string,
  name: string,
  use: (kv: Deno.Kv) => Promise<T>,
): Promise<T | 0> {
  if (!await pathExists(`${dir}/${name}`)) return 0;
  const kv = await Deno.openKv(`${dir}/${name}`);
  try {
    return await use(kv);
  } finally {
    kv.close();
  }
}

/**
 * Refuses what the copy cannot do: a LanceDB index (or one whose import into the encrypted
 * index has not finished), a key store that went missing. Resolves to the name of the active
 * encrypted index, `null` for none.
 */
async function checkSource(config: Config): Promise<string | null> {
  const dir = config.dataDir;
  const lost = config.cipher.kind === "local" && config.cipher.keysLost;
  await withKv(dir, "jobs.kv", (kv) => checkKeyStore(kv, dir, lost));
  const lance = "Cannot copy the data directory: its vector index is in LanceDB. Start a relayer " +
    "on it once with the encrypted index (SVC_VECTOR_STORE unset), which imports it, stop it, " +
    "then run migrate-store again";
  if (config.vectorStore.kind === "lancedb") throw new SvcError("bad_request", lance);
  if (config.vectorStore.kind === "memory") return null;
  const name = await readActiveIndex(dir, "index.active", "index", "the encrypted vector index");
  const hasIndex = await hasIndexFile(dir, name);
  if (await pathExists(`${dir}/lancedb`)) {
    let imported = false;
    if (hasIndex) {
      const storage = await openIndexFile(dir, name);
      try {
        imported = await storage.note("lancedb-import") === "done";
      } finally {
        storage.close();
      }
    }
    if (!imported) throw new SvcError("bad_request", lance);
  }
  return hasIndex ? name : null;
}

/**
 * Records in `database` that a copy of `dir` begins, and marks `dir` as being copied; or
 * (`resumed`) checks that the copy it holds was begun from `dir` as it is: a directory copied
 * elsewhere before, served since the copy began (its mark gone), or a database that holds state
 * (or was set up under another master key) are refused. Resolves to the copy's id.
 */
async function beginCopy(
  dir: string,
  database: Database,
  secret: Uint8Array<ArrayBuffer>,
  progress: ImportProgress,
  resumed: boolean,
): Promise<string | undefined> {
  // The copy is of this directory, as marked when the copy began (`markMoving`); an earlier
  // version's copy, marked with no id, by the directory alone.
  const source = (copy?: string) =>
    Deno.realPath(dir).then((path) =>
      copySource(secret, copy === undefined ? path : `${path}\n${copy}`)
    );
  const doing = "copy the data directory";
  if (resumed) {
    const mark = await readMark(dir, MOVING_FILE, doing) ?? await readMark(dir, MOVED_FILE, doing);
    if (await progress.resumes(await source(mark?.copy))) return mark?.copy;
    throw new SvcError(
      "conflict",
      `Cannot copy ${dir}: the copy this database holds was not begun from this data directory ` +
        `as it is (another directory or master key, or ${MOVING_FILE} deleted to serve this one ` +
        "since); finish it from the directory it was begun from, or copy into a new, empty " +
        "database",
    );
  }
  // Copied before, into a database that holds no copy begun from it (another, or one emptied
  // since): a second copy would bring back there what was erased in the first since.
  const moved = await readMark(dir, MOVED_FILE, doing);
  if (moved) {
    throw new SvcError(
      "conflict",
      `Cannot copy ${dir}: it was copied into PostgreSQL already${onDay(moved)}, into another ` +
        "database; serve that one. To copy it again all the same (the first copy's erases " +
        `since do not reach it), delete ${dir}/${MOVED_FILE}`,
    );
  }
  if (await holdsState(database)) {
    throw new SvcError(
      "conflict",
      "Cannot copy the data directory: the database holds relayers' state already; copy " +
        "into a new, empty database",
    );
  }
  // The ledger takes this master key first: a database a relayer or `svc migrate` set up
  // under another is refused before anything of the copy is recorded.
  await openPgLedger(database, secret).catch((error) => {
    if (!(error instanceof SvcError) || error.code !== "conflict") throw error;
    throw new SvcError(
      "conflict",
      `Cannot copy ${dir}: the database was set up under another master key (by a relayer ` +
        "or `svc migrate`); copy into a new, empty database, and start its relayers with " +
        "this data directory's key",
    );
  });
  // Marked first: the directory is not served while the database holds part of a copy.
  const copy = await markMoving(dir);
  await progress.begin(await source(copy));
  return copy;
}

/** Copies the data directory of `options.config` into `options.database`; see the module doc. */
export async function migrateStore(options: StoreMigrationOptions): Promise<StoreMigrationSummary> {
  const { config, database, secret } = options;
  const dir = config.dataDir;
  const index = await checkSource(config);
  // What an earlier version left (keys.kv, blob files, records in clear) is copied as this one's.
  await upgrade({ dataDir: dir, secret });
  const progress = await ImportProgress.open(database);
  const finished = await progress.finished();
  const resumed = finished.has("started");
  const copy = await beginCopy(dir, database, secret, progress, resumed);
  const complete = copyDone(finished);
  const steps = phaseSteps(options, index);
  const copied = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  let done = true;
  for (const phase of PHASES) {
    // A phase added since a copy was done is not run: it would mix what the directory holds
    // into a database served since.
    const before = finished.get(phase) ?? (complete ? 0 : undefined);
    if (before !== undefined) {
      copied[phase] = before;
      options.onPhase?.(phase, before, true);
      continue;
    }
    done = false;
    copied[phase] = await steps[phase]((count, total) =>
      options.onProgress?.({ phase, done: count, total })
    );
    await progress.finish(phase, copied[phase]);
    options.onPhase?.(phase, copied[phase], false);
  }
  await markMoved(dir, copy);
  return { copied, resumed, done, index };
}

/** What a phase copies from and into: the data directory, the database, the master key. */
interface Copy {
  dir: string;
  database: Database;
  secret: Uint8Array<ArrayBuffer>;
}

/** What each phase copies, given what to tell of its progress; `index`: the active index. */
function phaseSteps(
  { config, database, secret }: StoreMigrationOptions,
  index: string | null,
): Record<Phase, (tell: Tell) => Promise<number>> {
  const dir = config.dataDir;
  const copy: Copy = { dir, database, secret };
  /** Runs `use` on the state in the data directory's `jobs.kv`; 0 when there is none. */
  const jobsKv = (use: (state: KvStateStore) => Promise<number>) =>
    withKv(dir, "jobs.kv", (kv) => use(new KvStateStore(kv)));
  return {
    ledger: (tell) => copyLedger(copy, tell),
    keys: (tell) => copyKeys(copy, tell),
    blobs: async (tell) =>
      config.blobStore.kind === "postgres"
        ? await copyLocalBlobs(dir, await PgBlobStore.open({ database, secret }), secret, tell)
        : 0,
    index: (tell) => index ? copyIndexToDatabase(copy, index, tell) : Promise.resolve(0),
    jobs: (tell) => jobsKv((state) => copyJobs(copy, state, tell)),
    // Erased memories (under their owners' keyed hashes) and the expiry schedule.
    lifecycle: (tell) =>
      jobsKv(async (state) => {
        await new StateLifecycleRecords(state, secret).sealStored();
        return await copyState(state, database, [["erased"], ["expiry"]], tell);
      }),
    access_log: (tell) =>
      jobsKv((state) => copyState(state, database, [["access_log"], ["access_log_logs"]], tell)),
    // Operator-blind namespaces: their logs, wrapped keys and sealed names (`BlindLog`).
    blind: (tell) =>
      jobsKv((state) => copyState(state, database, [["blind"], ["blind-names"]], tell)),
    replay: (tell) =>
      jobsKv((state) => {
        const now = Date.now();
        const claims = () => liveClaims(state, now);
        return copyAll(claims, 5000, (batch) => importReplayClaims(database, batch), tell);
      }),
  };
}

async function copyLedger({ dir, database, secret }: Copy, tell: Tell): Promise<number> {
  return await withKv(dir, "ledger.kv", async (kv) => {
    const source = new KvLedgerStore(kv);
    const target = await openPgLedger(database, secret);
    return await copyAll(() => source.accounts(), BATCH, (a) => target.importAccounts(a), tell);
  });
}

async function copyKeys({ dir, database, secret }: Copy, tell: Tell): Promise<number> {
  if (!await hasKeyStore(dir)) return 0;
  const source = await openKeyStore(dir);
  const target = await PgKeyStore.open({ database, secret });
  try {
    // The store writes the puts made together in one statement.
    return await copyAll(
      () => source.entries(),
      500,
      (keys) => Promise.all(keys.map(({ place, wrapped }) => target.put(place, wrapped))),
      tell,
    );
  } finally {
    await target.close();
    await source.close();
  }
}

async function copyIndexToDatabase(
  { dir, database, secret }: Copy,
  name: string,
  tell: Tell,
): Promise<number> {
  const source = await openIndexFile(dir, name);
  const target = await PgBlockStorage.open(database, name);
  try {
    if (!await source.meta()) return 0;
    const done = await copyIndex(source, target, tell);
    const indexes = await PgIndexSet.open({ database, secret });
    try {
      await indexes.activate(name);
    } finally {
      await indexes.close();
    }
    return done;
  } finally {
    target.close();
    source.close();
  }
}

async function copyJobs(
  { dir, database, secret }: Copy,
  state: KvStateStore,
  tell: Tell,
): Promise<number> {
  const seal = await JobSeal.derive(secret);
  // The texts of jobs on their way are sealed under keys of their own, kept in the key store.
  const keyStore = await hasKeyStore(dir) ? await openKeyStore(dir) : undefined;
  try {
    const done = await copyAll(
      () => storedJobs(state, seal, { secret, keyStore }),
      100,
      (jobs) => importJobs(database, secret, jobs),
      tell,
    );
    for await (const letters of batches(deadLetters(state, seal), BATCH)) {
      await importDeadLetters(database, secret, letters);
    }
    return done;
  } finally {
    await keyStore?.close();
  }
}

/** Copies the state entries under `prefixes` of the data directory's `jobs.kv` as they are. */
async function copyState(
  source: KvStateStore,
  database: Database,
  prefixes: StateKey[],
  tell: Tell,
): Promise<number> {
  const target = new PgStateStore(database);
  const entries = async function* () {
    for (const prefix of prefixes) yield* source.list({ prefix });
  };
  return await copyAll(entries, 200, async (batch) => {
    const write = target.batch();
    for (const { key, value } of batch) write.set(key, value);
    await write.commit();
  }, tell);
}
