/** Migration 4: ciphertext blobs. */
import type { Migration } from "../migrations.ts";

export const BLOBS: Migration = {
  version: 4,
  name: "blobs",
  up: `select 1`,
};
