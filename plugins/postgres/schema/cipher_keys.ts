/** Migration 5: the local cipher's wrapped memory keys. */
import type { Migration } from "../migrations.ts";

export const CIPHER_KEYS: Migration = {
  version: 5,
  name: "cipher_keys",
  up: `select 1`,
};
