/**
 * For people writing their own backends: an in-memory twin of every backend interface, to build
 * a relayer in a test, and the conformance suites every backend of svc passes. A suite takes a
 * name and a factory of fresh instances and registers its `Deno.test`s. The job queue's twin,
 * `MemoryJobQueue`, runs a relayer without Deno KV for its jobs (`createRelayer`'s `queue`).
 *
 * @example Running the blob store suite against your own store
 * ```ts ignore
 * import { blobStoreSuite } from "./mod.ts";
 * import { DiskBlobStore } from "./disk_blob_store.ts";
 *
 * blobStoreSuite("DiskBlobStore", async () => await DiskBlobStore.open({ dir: await Deno.makeTempDir() }));
 * ```
 * @module
 */
export {
  cosineDistance,
  MemoryAccountDirectory,
  MemoryBlobStore,
  MemoryVectorStore,
} from "../backends/memory.ts";
export { MemoryCipher } from "./memory_cipher.ts";
export { MemoryVectorIndexSet } from "../backends/memory_index_set.ts";
export { MemoryEmbedder } from "./memory_embedder.ts";
export { MemoryReranker } from "./memory_reranker.ts";
export { seededRandom } from "@svc/util/seeded_random";
export { MemoryLlm } from "./memory_llm.ts";
export { MemoryJobQueue } from "./memory_job_queue.ts";
export { MemoryJobStore } from "./memory_job_store.ts";
export { StoredJobQueue } from "../jobs/stored_job_queue.ts";
export type { JobStore, JobWrite, StoredMessage } from "../jobs/job_store.ts";
export {
  type AccessLogStore,
  type AccessRecordRange,
  MemoryAccessLogStore,
  type SealedAccessRecord,
} from "../services/access_log_store.ts";
export { accessLogStoreSuite } from "./access_log_suite.ts";
export { stateStoreSuite } from "./state_store_suite.ts";
export { messageQueueSuite } from "./message_queue_suite.ts";
export { MemoryMessageQueue } from "./memory_message_queue.ts";
export { MemoryStateStore } from "../state/memory_state_store.ts";
// The core's stores over a StateStore, to run a backend's under them.
export { StateAccessLogStore } from "../services/access_log_store.ts";
export { StateLifecycleRecords } from "../services/lifecycle_records.ts";
export { StateUpdateClaims } from "../services/update_claims.ts";
export { type RecordedReplayGuard, replayGuardSuite } from "./replay_guard_suite.ts";
export { lifecycleRecordStoreSuite } from "./lifecycle_records_suite.ts";
export { updateClaimsSuite } from "./update_claims_suite.ts";
export { blindLogSuite, type SharedStates } from "./blind_log_suite.ts";
export { textClaimsSuite } from "./text_claims_suite.ts";
export { MemoryUpdateClaims } from "../services/update_claims.ts";
export { MemoryTextClaims } from "../remember/text_claims.ts";
export { jobQueueSuite } from "./job_queue_suite.ts";
export {
  type SharedJobQueueOptions,
  type SharedJobQueues,
  sharedJobQueueSuite,
} from "./shared_job_queue_suite.ts";
export { cipherSuite } from "./cipher_suite.ts";
export { vectorIndexSetSuite, type VectorIndexSetUnderTest } from "./vector_index_set_suite.ts";
export { type FaultOptions, SlowBlobStore, SlowEmbedder } from "./slow_backends.ts";
export { accountDirectorySuite } from "./account_directory_suite.ts";
export { blobStoreSuite } from "./blob_store_suite.ts";
export { embedderSuite, llmSuite, rerankerSuite } from "./model_suites.ts";
export { vectorStoreSuite, type VectorStoreUnderTest } from "./vector_store_suite.ts";
export {
  type SponsorClock,
  type SponsorFixture,
  type SponsorSender,
  sponsorSuite,
} from "./sponsor_suite.ts";
