/**
 * Migration 10: a blob's sealed attributes (`BlobMeta.sealedAttributes`, opaque to the store), so
 * that restore indexes a memory with its tags, thread and expiry. Blobs stored before have none.
 */
import type { Migration } from "../migrations.ts";

export const BLOB_ATTRIBUTES: Migration = {
  version: 10,
  name: "blob attributes",
  up: `alter table svc_blobs_objects add column sealed_attributes text;`,
};
