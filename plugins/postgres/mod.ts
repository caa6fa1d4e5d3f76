/**
 * The PostgreSQL plugin: the database many relayers share, and the stores built on it.
 * @module
 */
export { Database } from "./database.ts";
export { PgLedgerStore } from "./ledger_store.ts";
