/**
 * The PostgreSQL plugin: one database shared by many relayers, and the stores built on it.
 * @module
 */
export { Database } from "./database.ts";
export { PgAccessLogStore } from "./access_log_store.ts";
