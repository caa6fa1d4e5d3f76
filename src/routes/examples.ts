/** Example values the routes' OpenAPI descriptions share (`doc` in `router.ts`). */
import type { Memory } from "../services/memory_view.ts";

/** A memory id (also its job's id). */
export const EXAMPLE_ID = "0190f5a2-7c1e-7b3a-9f00-3c2d1e0f4a5b";

/** An owner's address. */
export const EXAMPLE_OWNER = "0x5a1c7e0b9f3d2a48c6e1b07d93f4a25e8c0d1b6a7f39e2c4d58b0a1e6f7c3d29";

/** A memory as list and get answer it. */
export const EXAMPLE_MEMORY: Memory = {
  id: EXAMPLE_ID,
  namespace: "default",
  text: "I am vegetarian",
  manual: false,
  tags: ["diet"],
  thread: null,
  created_at: "2026-05-01T12:00:00.000Z",
  updated_at: "2026-05-01T12:00:00.000Z",
  expires_at: null,
  supersedes: null,
  remembered_by: null,
};

/** A recall result. */
export const EXAMPLE_RESULT = {
  id: EXAMPLE_ID,
  blob_id: "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
  text: "I am vegetarian",
  tags: ["diet"],
  distance: 0.31,
  score: 0.87,
  created_at: "2026-05-01T12:00:00.000Z",
};

/** A finished remember job. */
export const EXAMPLE_JOB = {
  job_id: EXAMPLE_ID,
  status: "done",
  owner: EXAMPLE_OWNER,
  namespace: "default",
  blob_id: EXAMPLE_RESULT.blob_id,
  memory_id: EXAMPLE_ID,
  attempts: 1,
  created_at: "2026-05-01T12:00:00.000Z",
  updated_at: "2026-05-01T12:00:00.120Z",
};

/** An erase receipt. */
export const EXAMPLE_RECEIPT = {
  memory_id: EXAMPLE_ID,
  owner: EXAMPLE_OWNER,
  blob_id: EXAMPLE_RESULT.blob_id,
  erased_at: "2026-05-02T08:30:00.000Z",
  signature: "9c".repeat(64),
};
