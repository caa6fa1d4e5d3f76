/**
 * Migration 4: ciphertext blobs. One row per blob, its id the unpadded base64url SHA-256 of its
 * bytes (as the SQLite store's); `place` is a keyed hash of the owner and namespace (no owner or
 * namespace in clear); the bytes are ciphertext, stored out of line and uncompressed.
 */
import type { Migration } from "../migrations.ts";

export const BLOBS: Migration = {
  version: 4,
  name: "blobs",
  up: `
    create table svc_blobs_objects (
      id text primary key,
      place bytea not null,
      memory_id text not null,
      created_at double precision not null,
      sealed_vector text,
      bytes bytea not null
    );
    alter table svc_blobs_objects alter column bytes set storage external;
    create index svc_blobs_objects_listing on svc_blobs_objects (place, created_at desc, id desc);
  `,
};
