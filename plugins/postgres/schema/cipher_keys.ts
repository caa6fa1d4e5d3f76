/**
 * Migration 5: the local cipher's wrapped memory keys. `memory` is a keyed hash of the owner and
 * the memory id (neither in clear); `key_tag` tells a memory's encryptions apart; `wrapped` is
 * the data key wrapped under the master key.
 */
import type { Migration } from "../migrations.ts";

export const CIPHER_KEYS: Migration = {
  version: 5,
  name: "cipher_keys",
  up: `
    create table svc_cipher_keys_wrapped (
      memory bytea not null,
      key_tag text not null,
      wrapped bytea not null,
      primary key (memory, key_tag)
    );
  `,
};
