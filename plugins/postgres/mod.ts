export { Database } from "./database.ts";
export { PgBlockStorage } from "./block_storage.ts";
export { PgIndexSet, type PgIndexSetOptions } from "./index_set.ts";
export { PgReindexState } from "./reindex_state.ts";
