/**
 * Accounts and their transactions: the local ledger (in the data directory or the shared
 * database) or Sui's account objects, and the sponsor that pays for owners' transactions.
 */
import type { AccountDirectory, Sponsor } from "@svc/relayer/kit";
import { KvLedgerStore, LocalLedger } from "@svc/local-ledger";
import type { Database } from "@svc/postgres";
import type { Config } from "./config.ts";
import { openDatabase, postgresPlugin } from "./database.ts";
import { loadMasterKey } from "./master_key.ts";

/**
 * The local ledger: `ledger.kv` in the data directory, or the shared database with
 * `SVC_STORE=postgres` (`database` when the caller opened it already; else one of its own, which
 * `close` closes).
 */
export async function openLedger(
  config: Config,
  database?: Database,
): Promise<{ ledger: LocalLedger; close(): Promise<void> }> {
  if (config.store.kind === "embedded") {
    const store = await KvLedgerStore.open(`${config.dataDir}/ledger.kv`);
    const close = () => Promise.resolve(store.close());
    return { ledger: await LocalLedger.open({ store }), close };
  }
  const own = database ? undefined : await openDatabase(config);
  const shared = (database ?? own)!;
  try {
    const { openPgLedger } = await postgresPlugin();
    const masterKey = await loadMasterKey(config.dataDir, config.masterKey);
    const store = await openPgLedger(shared, masterKey);
    return { ledger: await LocalLedger.open({ store }), close: async () => await own?.close() };
  } catch (error) {
    await own?.close();
    throw error;
  }
}

/** Accounts: the local ledger, or `SvcAccount` objects on Sui. */
export async function openDirectory(
  config: Config,
  database: Database | undefined,
): Promise<{ directory: AccountDirectory; ledger?: LocalLedger; close?(): Promise<void> }> {
  const { chain } = config;
  switch (chain.kind) {
    case "local": {
      const { ledger, close } = await openLedger(config, database);
      return { directory: ledger, ledger, close };
    }
    case "sui": {
      const { SuiAccountDirectory } = await import("@svc/sui");
      const directory = await SuiAccountDirectory.open(chain.sui);
      // Ids that name no package or registry stop the start; a node down meanwhile does not
      // (each request says so, and the relayer serves once it is back).
      await directory.checkIds().catch((error) => {
        if (error.code !== "backend_unavailable") throw error;
      });
      return { directory };
    }
  }
}

/** The database connections the sidecar's sponsor opens at most, besides its listener. */
const SPONSOR_POOL = 2;

/**
 * The sponsor of the sidecar: the local ledger (which shares the relayer's ledger file, since Deno
 * KV allows several processes, or the shared database), or on Sui the operator's key when
 * `SVC_SPONSOR_PRIVATE_KEY` is set.
 */
export async function openSponsor(
  config: Config,
): Promise<{ sponsor?: Sponsor; close(): Promise<void> }> {
  const { chain } = config;
  switch (chain.kind) {
    case "local": {
      // Sponsoring is a few transactions now and then: a pool of two serves it.
      const store = config.store.kind === "postgres"
        ? { ...config.store, pool: SPONSOR_POOL }
        : config.store;
      const { ledger, close } = await openLedger({ ...config, store });
      return { sponsor: ledger, close };
    }
    case "sui": {
      const { sponsorPrivateKey } = chain.sui;
      const close = () => Promise.resolve();
      if (!sponsorPrivateKey) return { close };
      const { SuiSponsor } = await import("@svc/sui");
      return { sponsor: await SuiSponsor.open({ ...chain.sui, sponsorPrivateKey }), close };
    }
  }
}
