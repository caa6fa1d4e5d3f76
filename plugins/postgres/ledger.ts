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
import { type Database, pgCall } from "./database.ts";
import { PgStateStore } from "./state_store.ts";

/** Where the ledger's entries are in `svc_state`. */
export const LEDGER_PREFIX = ["ledger"];

/** The ledger in `database`, sealed under `masterKey` (32 bytes); see the module documentation. */
export async function openPgLedger(
  database: Database,
  masterKey: Uint8Array<ArrayBuffer>,
): Promise<StateLedgerStore> {
  const state = new PgStateStore(database);
  // An earlier version kept the check of the database's master key in a table of its own: it
  // holds until the start's upgrade moves the ledger.
  const [earlier] = await pgCall(
    "open the ledger",
    () => database.sql`select key_check from svc_ledger_version where key_check is not null`,
  );
  if (earlier) {
    const at = [...LEDGER_PREFIX, "key_check"];
    await state.batch().check(at, null).set(at, earlier.key_check.toHex()).commit();
  }
  return await StateLedgerStore.sealed(state, { secret: masterKey, prefix: LEDGER_PREFIX });
}
