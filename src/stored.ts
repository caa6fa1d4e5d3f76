/**
 * The relayer's records as they are stored, for the tools that open, copy or export a data
 * directory's state (the composition, `svc migrate-store`, the job export): sealed job records
 * and texts, replay claims, lifecycle records, update claims, sealed vectors and term hashes.
 *
 * @module
 */
export {
  type DeadLetter,
  JobSeal,
  sealStoredRecords,
  type StoredDeadLetter,
  type StoredJobRecord,
} from "./jobs/job_seal.ts";
export type { CiphertextMark, JobTexts, TextsToDrop } from "./jobs/job_texts.ts";
export { openTexts } from "./jobs/state_job_store.ts";
export { liveClaims } from "./auth/state_replay_guard.ts";
export { StateLifecycleRecords } from "./services/lifecycle_records.ts";
export { StateUpdateClaims } from "./services/update_claims.ts";
export { type SealedVectorPlace, VectorSeal } from "./pipeline/vector_seal.ts";
export { TermHasher, type Written } from "./ranking/terms.ts";
