/**
 * The relayer's state in Deno KV (the data directory's `jobs.kv`): the job queue, the replay
 * guard, the erased memories and expiry schedule, the access log and a reindex's progress. One
 * relayer owns a store; `@svc/postgres` keeps the same state for several relayers.
 *
 * @example
 * ```ts
 * const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
 * const relayer = await createRelayer({
 *   ...await openKvStores(kv, secret, { maxAttempts: 5 }),
 *   secret,
 *   directory,
 *   cipher,
 *   blobs,
 *   vectors,
 *   embedder,
 * });
 * ```
 *
 * @module
 */
import { KvAccessLogStore } from "./access_log_store.ts";
import { KvJobQueue } from "./job_queue.ts";
import { LifecycleRecords } from "./lifecycle_records.ts";
import { KvReplayGuard } from "./replay_guard.ts";

export type {
  AcceptOptions,
  AccessLogStore,
  AccessRecordRange,
  CarriedClaim,
  CiphertextToSave,
  ClaimRecordStats,
  CreateOptions,
  Expiry,
  Fingerprint,
  JobCompletion,
  JobHandler,
  JobInput,
  JobMessage,
  JobQueue,
  JobQueueOptions,
  JobRecord,
  JobStatus,
  JobStore,
  JobWrite,
  LifecycleRecordStore,
  ListenOptions,
  PartitionCursor,
  PendingClaim,
  PublicJob,
  ReindexPlan,
  ReindexStateStore,
  ReplayGuard,
  SealedAccessRecord,
  StoredJobQueue,
  StoredJobQueueOptions,
  StoredMessage,
} from "@svc/relayer/kit";
export { KvAccessLogStore } from "./access_log_store.ts";
export { KvJobQueue } from "./job_queue.ts";
export {
  type DeadLetter,
  KvJobSeal,
  sealStoredRecords,
  type StoredDeadLetter,
  type StoredJobRecord,
} from "./job_seal.ts";
export { deadLetters, type StoredJob, storedJobs } from "./job_export.ts";
export { LifecycleRecords } from "./lifecycle_records.ts";
export { ReindexState } from "./reindex_state.ts";
export { KvReplayGuard, type KvReplayGuardOptions, liveClaims } from "./replay_guard.ts";

/** The stores a relayer keeps in one Deno KV. */
export interface KvStores {
  /** The job queue. */
  queue: KvJobQueue;
  /** The signed requests already used. */
  replayGuard: KvReplayGuard;
  /** The erased memories and the expiry schedule. */
  records: LifecycleRecords;
  /** The owners' access logs. */
  accessLogStore: KvAccessLogStore;
}

/** What {@link openKvStores} takes besides the store and the secret. */
export interface KvStoreOptions {
  /** Attempts before a remember job is marked failed (default 5). */
  maxAttempts?: number;
  /** How long a worker holds a remember job before it may be taken over (default 120 s). */
  leaseMs?: number;
  /** The replay guard's clock: the one signed requests are checked with (default `Date.now`). */
  now?: () => number;
}

/** Opens the relayer's stores in `kv`; `secret` (the relayer's 32 bytes) seals what they keep. */
export async function openKvStores(
  kv: Deno.Kv,
  secret: Uint8Array<ArrayBuffer>,
  options: KvStoreOptions = {},
): Promise<KvStores> {
  const { maxAttempts, leaseMs } = options;
  return {
    queue: await KvJobQueue.open(kv, secret, { maxAttempts, leaseMs }),
    replayGuard: await KvReplayGuard.open(kv, { now: options.now }),
    records: new LifecycleRecords(kv, secret),
    accessLogStore: new KvAccessLogStore(kv),
  };
}
