/** Migration 6: the encrypted index: blocks, headers, memory locations. */
import type { Migration } from "../migrations.ts";

export const INDEX: Migration = {
  version: 6,
  name: "index",
  up: `select 1`,
};
