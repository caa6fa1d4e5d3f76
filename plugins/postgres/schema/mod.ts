/**
 * The schema's migrations, in order. Each store of the plugin owns one file here; a later change
 * to a store's tables is a new migration with the next version, never an edit of a released one.
 */
import type { Migration } from "../migrations.ts";
import { JOBS } from "./jobs.ts";
import { REPLAY } from "./replay.ts";
import { LEDGER } from "./ledger.ts";
import { BLOBS } from "./blobs.ts";
import { CIPHER_KEYS } from "./cipher_keys.ts";
import { INDEX } from "./index.ts";
import { ACCESS_LOG } from "./access_log.ts";
import { LIFECYCLE } from "./lifecycle.ts";
import { TEXT_CLAIMS } from "./text_claims.ts";
import { BLOB_ATTRIBUTES } from "./blob_attributes.ts";
import { STATE } from "./state.ts";

/** Every migration, by version. */
export const MIGRATIONS: Migration[] = [
  JOBS,
  REPLAY,
  LEDGER,
  BLOBS,
  CIPHER_KEYS,
  INDEX,
  ACCESS_LOG,
  LIFECYCLE,
  TEXT_CLAIMS,
  BLOB_ATTRIBUTES,
  STATE,
];
