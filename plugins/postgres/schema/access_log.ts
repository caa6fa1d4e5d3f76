import type { Migration } from "../migrations.ts";

/**
 * The access log, `svc_access_log_records`: what the embedded store keeps and nothing more: a log's
 * opaque tag (a keyed hash of its owner), a record's time-ordered id, its sealed bytes. Both
 * compare byte-wise (`collate "C"`), as the store's ranges are meant; prune walks the id index.
 */
export const ACCESS_LOG: Migration = {
  version: 7,
  name: "access_log",
  up: `
    create table svc_access_log_records (
      log text collate "C" not null,
      id text collate "C" not null,
      sealed bytea not null,
      primary key (log, id)
    );
    create index svc_access_log_records_id on svc_access_log_records (id);
  `,
};
