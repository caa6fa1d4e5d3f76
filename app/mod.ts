/**
 * The composition: configuration in, opened backends out. The relayer's entry (`main.ts`) and
 * the sidecar's (`sidecar.ts`) both assemble their parts here; its modules are the core's only
 * ones that import plugins, each lazily (but the local ledger, the embedded default, whose package
 * id `/health` reports), so an unused SDK never loads. Every plugin is opened the same way:
 * `await Plugin.open(options)`.
 */
import type {
  BlobStore,
  Cipher,
  KeyStore,
  Logger,
  VectorIndexSet,
  VectorStore,
} from "@svc/relayer/kit";
import { MemoryVectorIndexSet, type RelayerOptions, type SidecarLink } from "@svc/relayer";
import { LOCAL_PACKAGE_ID, type LocalLedger } from "@svc/local-ledger";
import type { Database } from "@svc/postgres";
import { TermHasher } from "@svc/relayer/stored";
import { SidecarSponsor } from "./sidecar/sponsor_client.ts";
import type { Config } from "./config.ts";
import { openDirectory } from "./accounts.ts";
import { openDatabase, postgresPlugin } from "./database.ts";
import { openEmbedder, openLlm } from "./models.ts";
import { type ChosenEmbedder, holdsNothingYet, openChosenEmbedder } from "./default_embedder.ts";
import { openState, type SharedState } from "./relayer_state.ts";
import { openLocalBlobs, warnOfLostIndex } from "./local_blobs.ts";
import { loadMasterKey } from "./master_key.ts";
import { makeDataDir, makePrivate } from "./private_files.ts";
import { checkNotMoved } from "./moved.ts";
import { checkVectorStore } from "./vector_store_kind.ts";
import { recordKeyStore } from "./key_store_record.ts";
import { type OpenedIndex, openVectorIndex, type VectorIndexDependencies } from "./vector_index.ts";
import type { BackgroundReindex } from "@svc/relayer/reindex";
import { type IndexLock, lockIndex } from "./index_lock.ts";
import { upgrade } from "@svc/upgrades";

export {
  type Config,
  EMBEDDER_KINDS,
  masterKeyFileOf,
  POSTGRES_ENV,
  readConfig,
  SIDECAR_ENV,
} from "./config.ts";
export { sidecarNetHosts } from "./sidecar_hosts.ts";
export { restrictNewFiles } from "./private_files.ts";
export { openLedger, openSponsor } from "./accounts.ts";
export { checkNotMoved } from "./moved.ts";
export { lockIndex } from "./index_lock.ts";
export { loadMasterKey, masterKeyPath } from "./master_key.ts";
export { embedderPlugin } from "./embedders.ts";
export { DiskSpace, startRefusal } from "./disk_space.ts";
export { RequestsInFlight } from "./in_flight.ts";
export { SidecarSupervisor } from "./sidecar/supervisor.ts";

/** The backends and settings of `createRelayer` that the composition opens and derives. */
export type RelayerBackends =
  & Pick<
    RelayerOptions,
    | "secret"
    | "directory"
    | "cipher"
    | "blobs"
    | "vectors"
    | "embedder"
    | "reranker"
    | "llm"
  >
  & SharedState
  & Required<Pick<RelayerOptions, "mode" | "packageId">>;

/** Everything a relayer is built from, opened; `close` releases what was opened here. */
export interface Backends {
  /** What `createRelayer` takes from the composition (secret, stores, backends, mode, package). */
  relayer: RelayerBackends;
  /** The local ledger of embedded mode (`SVC_CHAIN=local`), which the dashboard serves. */
  ledger?: LocalLedger;
  /**
   * The reindex to run when the index was built with another embedder and `SVC_REINDEX=1` (or
   * `offline`): `start` it once the relayer serves; `close` stops it.
   */
  reindex?: BackgroundReindex;
  close(): Promise<void>;
}

/** What `openStores` opens from. */
interface StoreSettings {
  config: Config;
  secret: Uint8Array<ArrayBuffer>;
  database: Database | undefined;
  /** The embedder chosen, and its re-ranker. */
  chosen: ChosenEmbedder;
  logger: Logger;
  links: { sidecar?: SidecarLink; offlineReindex?: boolean };
}

/** What a store opens from. */
type Opening = Pick<StoreSettings, "config" | "secret" | "database" | "logger">;

/** The vector store's indexes: the encrypted index's files, LanceDB's tables, or memory. */
async function openIndexSet(
  { config, secret, logger, database }: Opening,
): Promise<VectorIndexSet> {
  switch (config.vectorStore.kind) {
    case "encrypted": {
      if (database) {
        // Other relayers write too: what this one holds is kept current by notifications.
        const { PgIndexSet } = await postgresPlugin();
        const { memoryMb } = config.vectorStore;
        return await PgIndexSet.open({ database, secret, memoryMb, logger });
      }
      const { EncryptedIndexSet } = await import("@svc/encrypted-index");
      return await EncryptedIndexSet.open({
        dir: config.dataDir,
        secret,
        memoryMb: config.vectorStore.memoryMb,
        // One relayer per data directory: nothing else writes its index.
        soleWriter: true,
        logger,
      });
    }
    case "lancedb": {
      const { LanceDbIndexSet } = await import("@svc/lancedb");
      return await LanceDbIndexSet.open({ dir: `${config.dataDir}/lancedb`, logger });
    }
    case "memory":
      return new MemoryVectorIndexSet();
  }
}

/**
 * The index served from (see `vector_index.ts`); an old LanceDB index is imported into a new
 * encrypted one first, when `SVC_VECTOR_STORE` is unset.
 */
async function openVectors(
  deps: Omit<VectorIndexDependencies, "indexes" | "openEmbedder">,
  database: Database | undefined,
): Promise<OpenedIndex> {
  const { config, secret, cipher, blobs, logger } = deps;
  const indexes = await openIndexSet({ config, secret, logger, database });
  const opened = await openVectorIndex({
    ...deps,
    indexes,
    openEmbedder: (embedder) => openEmbedder(embedder, logger),
  });
  try {
    if (config.vectorStore.kind === "encrypted" && config.vectorStore.importLanceDb) {
      const { EncryptedVectorStore } = await import("@svc/encrypted-index");
      if (opened.vectors instanceof EncryptedVectorStore) {
        const { importLanceDb } = await import("./lancedb_import.ts");
        const { model, dimensions } = opened.embedder;
        const hasher = await TermHasher.fromSecret(secret);
        const reading = { blobs, cipher, hasher };
        await importLanceDb(opened.vectors, config.dataDir, { model, dimensions }, reading, logger);
      }
    }
  } catch (error) {
    try {
      await opened.vectors.close();
    } finally {
      await opened.kept?.close?.();
    }
    throw error;
  }
  return opened;
}

/**
 * The cipher, and what closes it: the local cipher keeps the memories' wrapped keys in its key
 * store, `keys.sqlite` in the data directory (`keys`, opened with the relayer's state, which the
 * job queue shares and which is closed apart) or the shared database (apart from the blobs, so
 * that erasing a memory's key defeats every copy of its blob). Seal's erase is a transaction the
 * sidecar's sponsor pays for (`SidecarSponsor`, with `SVC_SPONSOR_PRIVATE_KEY`).
 */
async function openCipher(
  { config, secret, database, links }: StoreSettings,
  keys: KeyStore | undefined,
): Promise<{ cipher: Cipher; close?(): Promise<void> }> {
  switch (config.cipher.kind) {
    case "local": {
      const { LocalCipher } = await import("@svc/local-cipher");
      // The data directory's key store is closed apart; the database's, with the cipher.
      const keyStore = keys ??
        await (await postgresPlugin()).PgKeyStore.open({ database: database!, secret });
      const cipher = await LocalCipher.open({ masterKey: secret, keyStore, closesKeyStore: !keys });
      return { cipher, close: () => cipher.close() };
    }
    case "seal": {
      const { SealCipher } = await import("@svc/seal");
      const paid = config.chain.kind === "sui" && config.chain.sui.sponsorPrivateKey;
      const sponsor = paid && links.sidecar ? new SidecarSponsor(links.sidecar) : undefined;
      const cipher = await SealCipher.open({ ...config.cipher.seal, sponsor });
      await cipher.checkKeyServers();
      return { cipher };
    }
  }
}

async function openBlobs({ config, secret, database, logger }: Opening): Promise<BlobStore> {
  switch (config.blobStore.kind) {
    case "postgres": {
      const { PgBlobStore } = await postgresPlugin();
      return await PgBlobStore.open({ database: database!, secret });
    }
    case "sqlite":
      return await openLocalBlobs(config.dataDir, secret, logger);
    case "walrus": {
      const { WalrusBlobStore } = await import("@svc/walrus");
      const { ownerKey, packageId, ...walrus } = config.blobStore.walrus;
      return await WalrusBlobStore.open({
        ...walrus,
        walrusPackageId: packageId,
        operatorKey: ownerKey,
        cacheDir: `${config.dataDir}/walrus_cache`,
      });
    }
  }
}

/**
 * What `openBackends` has opened so far, closed in one order (the index first, the lock last)
 * when a start is refused and when the relayer stops.
 */
class OpenedParts {
  closeEmbedder?: () => Promise<void>;
  database?: Database;
  lock?: IndexLock;
  closeState?: () => Promise<void>;
  /** The data directory's key store, shared by the job queue and the local cipher. */
  keyStore?: KeyStore;
  closeCipher?: () => Promise<void>;
  blobs?: BlobStore;
  vectors?: VectorStore;
  closeDirectory?: () => Promise<void>;

  async close(): Promise<void> {
    await this.vectors?.close();
    await this.blobs?.close?.();
    await this.closeState?.();
    await this.closeDirectory?.();
    await this.closeCipher?.();
    await this.keyStore?.close();
    await this.closeEmbedder?.();
    await this.database?.close();
    this.lock?.release();
  }
}

/**
 * The relayer's state, cipher, blobs, index and accounts, each checked against what the data
 * directory recorded; each is put in `opened` as it opens, for the caller to close.
 */
async function openStores(settings: StoreSettings, opened: OpenedParts) {
  const { config, secret, database, chosen, logger, links } = settings;
  const state = await openState(config, secret, database, logger);
  opened.closeState = state.close;
  opened.keyStore = state.keyStore;
  if (state.kv) {
    await checkVectorStore(state.kv, config.dataDir, config.vectorStore, (kind) => {
      const store = kind === "encrypted" ? { kind, memoryMb: 64, importLanceDb: false } : { kind };
      return openIndexSet({
        ...settings,
        config: { ...config, vectorStore: store },
        database: undefined,
      });
    });
  }
  // A lost key store was refused (or accepted) as `openState` opened it.
  const { cipher, close } = await openCipher(settings, state.keyStore);
  opened.closeCipher = close;
  if (config.cipher.kind === "local" && state.kv) await recordKeyStore(state.kv);
  const blobs = opened.blobs = await openBlobs(settings);
  const index = await openVectors({
    config,
    state: state.reindex,
    secret,
    cipher,
    blobs,
    embedder: chosen.embedder,
    reranker: chosen.reranker,
    logger,
    offline: links.offlineReindex,
  }, database);
  opened.vectors = index.vectors;
  if (config.store.kind === "embedded") {
    await warnOfLostIndex(config.dataDir, index.vectors, logger);
  }
  if (index.kept) {
    // The index's own embedder serves: the configured one is not needed.
    const unused = opened.closeEmbedder;
    opened.closeEmbedder = index.kept.close;
    await unused?.();
  }
  const accounts = await openDirectory(config, database);
  opened.closeDirectory = accounts.close;
  return { cipher, blobs, shared: state.shared, ...index, ...accounts };
}

/**
 * Opens every backend the configuration names, then makes what they keep in the data directory
 * private to its owner (see `private_files.ts`; an older install's looser files are tightened,
 * and that is logged once). `sidecar`: the MCP sidecar the relayer will run, whose sponsor pays
 * for a Seal cipher's erase transactions.
 */
export async function openBackends(
  config: Config,
  logger: Logger,
  links: { sidecar?: SidecarLink; offlineReindex?: boolean } = {},
): Promise<Backends> {
  await makeDataDir(config.dataDir);
  const doing = links.offlineReindex ? "reindex" : "start the relayer";
  const embedded = config.store.kind === "embedded";
  const opened = new OpenedParts();
  // One relayer per data directory (a database is shared): taken before anything in the
  // directory is read or changed (the upgrades), so a relayer serving from it keeps it.
  if (embedded) opened.lock = await lockIndex(config.dataDir, doing);
  let secret, chosen, llm, database, stores;
  try {
    if (embedded) await checkNotMoved(config.dataDir, doing);
    const fresh = embedded && await holdsNothingYet(config.dataDir);
    secret = await loadMasterKey(config.dataDir, config.masterKey, logger);
    chosen = await openChosenEmbedder(config.embedder, config.dataDir, fresh, logger);
    // From here on, the embedder is the one chosen: what the log and errors advise names it.
    config = { ...config, embedder: chosen.config };
    opened.closeEmbedder = chosen.close;
    llm = await openLlm(config.llm);
    database = opened.database = await openDatabase(config, logger);
    // What an earlier version left, in this version's form before the stores open.
    const localBlobs = config.blobStore.kind === "sqlite";
    await upgrade({ dataDir: config.dataDir, secret, database, logger, localBlobs });
    stores = await openStores({ config, secret, database, chosen, logger, links }, opened);
  } catch (error) {
    // A start refused (another embedder, a held lock) leaves nothing open.
    await opened.close();
    throw error;
  }
  const { cipher, blobs, vectors, embedder, reindex, shared, directory, ledger } = stores;
  const sui = config.chain.kind === "sui" ? config.chain.sui : undefined;
  const tightened = makePrivate(config.dataDir);
  if (tightened > 0) {
    logger.warn("made the data directory private: group and others lost their permissions", {
      data_dir: config.dataDir,
      entries: tightened,
    });
  }
  return {
    relayer: {
      secret,
      ...shared,
      directory,
      cipher,
      blobs,
      vectors,
      embedder,
      reranker: stores.kept ? stores.kept.reranker : stores.reranker ?? chosen.reranker,
      llm,
      mode: sui ? "network" : "embedded",
      packageId: sui?.packageId ?? LOCAL_PACKAGE_ID,
    },
    ledger,
    reindex,
    async close() {
      await reindex?.stop();
      await opened.close();
    },
  };
}
