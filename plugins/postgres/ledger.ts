/**
 * The local ledger in the database many relayers share: a `StateLedgerStore` in `svc_state`,
 * under `["ledger"]`, sealed under the relayers' master key. Opening it refuses a database whose
 * ledger was written under another key, so every relayer, `svc migrate` and `svc migrate-store`
 * opens it first.
 *
 * @example
 * ```ts ignore
 * const ledger = await LocalLedger.open({ store: await openPgLedger(database, masterKey) });
 * ```
 */
import { StateLedgerStore } from "@svc/local-ledger";
import type { Database } from "./database.ts";
import { PgStateStore } from "./state_store.ts";

/** Where the ledger's entries are in `svc_state`. */
export const LEDGER_PREFIX = ["ledger"];

/** The ledger in `database`, sealed under `masterKey` (32 bytes); see the module documentation. */
export async function openPgLedger(
  database: Database,
  masterKey: Uint8Array<ArrayBuffer>,
): Promise<StateLedgerStore> {
  const state = new PgStateStore(database);
  return await StateLedgerStore.sealed(state, { secret: masterKey, prefix: LEDGER_PREFIX });
}
