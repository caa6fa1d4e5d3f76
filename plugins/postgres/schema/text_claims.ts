import type { Migration } from "../migrations.ts";

/**
 * `svc_text_claims`: which job is storing a text, by a keyed hash of the text's place (owner,
 * namespace and the text's digest), and since when (Unix ms). Rows live while their job runs; the
 * job retried after a crash takes its row again, another job once it is `TEXT_CLAIM_MS` old.
 */
export const TEXT_CLAIMS: Migration = {
  version: 9,
  name: "text claims",
  up: `
    create table svc_text_claims (
      place bytea primary key,
      claimed_by text collate "C" not null,
      claimed_at int8 not null
    );
    create index svc_text_claims_by on svc_text_claims (claimed_by);
  `,
};
