import type { Migration } from "../migrations.ts";

/**
 * `svc_state`: the core's key-value state (`PgStateStore`). A key is its encoding, whose byte order
 * is the keys' order (`encodeKey`); a value is V8-serialised; `version` changes with every write,
 * from `svc_state_versions`; `expires_at` (Unix ms) is when the row may go.
 */
export const STATE: Migration = {
  version: 11,
  name: "state",
  up: `
    create sequence svc_state_versions;
    create table svc_state (
      key bytea primary key,
      value bytea not null,
      version int8 not null,
      expires_at int8
    );
    create index svc_state_expiry on svc_state (expires_at) where expires_at is not null;
  `,
};
