/** Migration 7: the access log. */
import type { Migration } from "../migrations.ts";

export const ACCESS_LOG: Migration = {
  version: 7,
  name: "access_log",
  up: `select 1`,
};
