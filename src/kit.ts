/**
 * The plugin kit: what a backend of svc is written against. The interfaces it implements, the
 * error it throws, the logger it is given, the settings reader of the configuration and the
 * small helpers of svc that several backends share. Plugins import svc only through this module
 * (a test checks it), and people writing their own backends need nothing else of svc; generic
 * helpers, which know nothing of svc, are in `@svc/util`.
 *
 * @example
 * ```ts
 * import { backendError, type BlobMeta, type BlobStore, type CallOptions } from "./kit.ts";
 *
 * class DiskBlobStore implements BlobStore {
 *   readonly name = "disk";
 *   async put(bytes: Uint8Array<ArrayBuffer>, meta: BlobMeta, options?: CallOptions) {
 *     try {
 *       // ...store the bytes...
 *       return "blob id";
 *     } catch (error) {
 *       throw backendError(this.name, "store a blob", error);
 *     }
 *   }
 *   // get, list...
 * }
 * ```
 * @module
 */
export type * from "./backends/types.ts";
export type * from "./backends/embedder_plugin.ts";
export { JOB_TEXT_KEY_TAG, type KeyPlace, type KeyStore } from "./backends/key_store.ts";
export { rejected, type RejectionReason } from "./backends/rejection.ts";
export { BlobPlaces } from "./backends/blob_place.ts";
export { checkIndexName } from "./backends/index_names.ts";
export { EmbedWorker, type WorkerModel } from "./backends/embed_worker.ts";
export { gatheredBatch } from "./state/state_store.ts";
export type {
  StateBatch,
  StateCheck,
  StateEntry,
  StateKey,
  StateKeyPart,
  StateListOptions,
  StateSelector,
  StateSetOptions,
  StateStore,
  StateWrite,
} from "./state/state_store.ts";
/** State keys as ordered bytes, for a `StateStore` that keeps them so (`encodeKey` …). */
export * as stateKeys from "./state/state_key.ts";
/** Keyed hashes to file entries under instead of what they name (`tagKey`, `tagOf`). */
export * as stateTags from "./state/tags.ts";
export { type PartitionCursor, type ReindexPlan, type ReindexState } from "./reindex/state.ts";
export {
  type AccessLogStore,
  type AccessRecordRange,
  type SealedAccessRecord,
} from "./services/access_log_store.ts";
export type {
  ErasedMemory,
  Erasure,
  Expiry,
  LifecycleRecordStore,
} from "./services/lifecycle_records.ts";
export type { UpdateClaims } from "./services/update_claims.ts";
export { TEXT_CLAIM_MS, type TextClaim, type TextClaims } from "./remember/text_claims.ts";
export {
  backendError,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetails,
  SvcError,
} from "./errors.ts";
export { createLogger, type LogFields, type Logger, type LogLevel, silentLogger } from "./log.ts";
export { SettingsReader, shown } from "./settings_reader.ts";
export { UNPRINTABLE, UNSHOWN_IN_LABELS } from "./validate.ts";
export type { CarriedClaim, PendingClaim, ReplayGuard } from "./auth/replay_guard.ts";
export { type ClaimRecordStats, type Fingerprint, fingerprintOf } from "./auth/claim_record.ts";
export {
  type AcceptOptions,
  type CiphertextToSave,
  type JobCompletion,
  type JobHandler,
  type JobInput,
  type JobMessage,
  type JobQueue,
  type JobQueueOptions,
  type JobRecord,
  type JobStatus,
  type ListenOptions,
  type PublicJob,
} from "./jobs/job_queue.ts";
export type { CreateOptions, JobStore, JobWrite, StoredMessage } from "./jobs/job_store.ts";
export { StoredJobQueue, type StoredJobQueueOptions } from "./jobs/stored_job_queue.ts";
export type { EnqueueOptions, MessageQueue } from "./jobs/message_queue.ts";
export { openStateStores, type StateStoreOptions, type StateStores } from "./state_stores.ts";
export { MAX_SCOPE_NAMESPACES } from "./auth/scope.ts";
export { type KeyLimits, type KeyLimitsJson, parseKeyLimits } from "./auth/key_limits.ts";
export type { KeyPair } from "@svc/util/keys";
export { ChatLlm, type ChatMessage } from "./llm/chat_llm.ts";
export {
  Provider,
  type ProviderErrorOptions,
  type ProviderOptions,
  type RetryOptions,
} from "./llm/provider.ts";
