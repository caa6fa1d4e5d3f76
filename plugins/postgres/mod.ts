export { Database } from "./database.ts";
export { PgBlockStorage } from "./block_storage.ts";
