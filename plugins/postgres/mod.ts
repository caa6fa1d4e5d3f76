/**
 * The PostgreSQL plugin: the database many relayers share, and the stores built on it.
 * @module
 */
export { Database } from "./database.ts";
export { PgBlobStore } from "./blob_store.ts";
export { PgKeyStore } from "./key_store.ts";
export { PgLedgerStore } from "./ledger_store.ts";
