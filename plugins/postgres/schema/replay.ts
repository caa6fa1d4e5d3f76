/** Migration 2: the replay guard. */
import type { Migration } from "../migrations.ts";

export const REPLAY: Migration = {
  version: 2,
  name: "replay",
  up: `select 1`,
};
