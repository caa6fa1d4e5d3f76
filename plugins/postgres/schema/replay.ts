import type { Migration } from "../migrations.ts";

/**
 * The replay guard's `svc_replay_claims`: the claimed requests, as the embedded guard keeps them: a
 * key's 64-bit fingerprint (the first 8 bytes of its SHA-256, as a signed `int8`) and when the
 * claim expires (Unix ms). Pruning walks the expiry index.
 */
export const REPLAY: Migration = {
  version: 2,
  name: "replay",
  up: `
    create table svc_replay_claims (
      print int8 primary key,
      expires_at int8 not null
    );
    create index svc_replay_claims_expiry on svc_replay_claims (expires_at);
  `,
};
