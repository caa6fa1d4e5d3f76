/**
 * The PostgreSQL plugin: one database shared by many relayers, and the stores built on it.
 * @module
 */
export { Database } from "./database.ts";
export { PgAccessLogStore } from "./access_log_store.ts";
export { PgReplayGuard } from "./replay_guard.ts";
export { PgLifecycleRecords } from "./lifecycle_records.ts";
export { PgUpdateClaims } from "./update_claims.ts";
