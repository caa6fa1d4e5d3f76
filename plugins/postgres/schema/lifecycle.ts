import type { Migration } from "../migrations.ts";

/**
 * Erased memories, the expiry schedule, update claims:
 * - `svc_lifecycle_erased`: which memories were erased, by a keyed hash of their owner (never
 *   the address) and their id, with the time of the erase.
 * - `svc_lifecycle_expiry`: the expiry schedule in expiry order; each row's owner and namespace
 *   sealed together (AES-GCM, bound to the row's expiry and id). `leased_until` (Unix ms) hands
 *   a due row to one relayer's sweep at a time.
 * - `svc_lifecycle_update_claims`: which update holds a memory it replaces, both as keyed
 *   hashes, and since when (Unix ms).
 */
export const LIFECYCLE: Migration = {
  version: 8,
  name: "lifecycle",
  up: `
    create table svc_lifecycle_erased (
      owner bytea not null,
      memory_id text collate "C" not null,
      erased_at int8 not null,
      primary key (owner, memory_id)
    );
    create table svc_lifecycle_expiry (
      expires_at int8 not null,
      memory_id text collate "C" not null,
      sealed bytea not null,
      leased_until int8 not null default 0,
      primary key (expires_at, memory_id)
    );
    create table svc_lifecycle_update_claims (
      memory bytea primary key,
      claimed_by bytea not null,
      claimed_at int8 not null
    );
  `,
};
