/**
 * The relayer's state in Deno KV (the data directory's `jobs.kv`): the job queue, the replay
 * guard, the erased memories and expiry schedule, the access log and a reindex's progress. One
 * relayer owns a store; `@svc/postgres` keeps the same state for several relayers.
 *
 * @example
 * ```ts
 * const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
 * const keyStore = await SqliteKeyStore.open(`${dataDir}/keys.sqlite`); // @svc/local-cipher/key_store
 * const relayer = await createRelayer({
 *   ...await openKvStores(kv, secret, { keyStore, maxAttempts: 5 }),
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
import type { KeyStore } from "@svc/relayer/kit";
import { KvJobQueue } from "./job_queue.ts";
import { KvReplayGuard } from "./replay_guard.ts";
import { KvStateStore } from "./state_store.ts";

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
  KeyPlace,
  KeyStore,
  LifecycleRecordStore,
  ListenOptions,
  PartitionCursor,
  PendingClaim,
  PublicJob,
  ReindexPlan,
  ReindexStateStore,
  ReplayGuard,
  SealedAccessRecord,
  StateBatch,
  StateEntry,
  StateKey,
  StateKeyPart,
  StateListOptions,
  StateSelector,
  StateSetOptions,
  StateStore,
  StoredJobQueue,
  StoredJobQueueOptions,
  StoredMessage,
} from "@svc/relayer/kit";
export { KvStateStore } from "./state_store.ts";
export { KvJobQueue, type KvJobQueueOptions } from "./job_queue.ts";
export { JobTextKeys } from "./job_keys.ts";
export {
  type DeadLetter,
  KvJobSeal,
  sealStoredRecords,
  type StoredDeadLetter,
  type StoredJobRecord,
} from "./job_seal.ts";
export { deadLetters, type StoredJob, storedJobs, type TextKeys } from "./job_export.ts";
export { KvReplayGuard, type KvReplayGuardOptions, liveClaims } from "./replay_guard.ts";

/** The relayer's state in one Deno KV, as `createRelayer` takes it. */
export interface KvStores {
  /** The job queue. */
  queue: KvJobQueue;
  /** The signed requests already used. */
  replayGuard: KvReplayGuard;
  /** Everything else: the access log, the erased memories and the expiry schedule. */
  state: KvStateStore;
  /** The key store the job queue keeps its texts' keys in, when given one. */
  jobTextKeys?: KeyStore;
}

/** What {@link openKvStores} takes besides the store and the secret. */
export interface KvStoreOptions {
  /**
   * Where the keys of the jobs' waiting texts are kept (the relayer's `keys.sqlite`, shared with
   * the local cipher): recording a memory erased erases its job's key there, so what `jobs.kv`
   * still holds of its text no longer opens. Without it the texts are sealed under a key derived
   * from the secret, which nothing erases: for a KV in memory (tests, tools) only.
   */
  keyStore?: KeyStore;
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
  const { maxAttempts, leaseMs, keyStore } = options;
  return {
    queue: await KvJobQueue.open(kv, secret, { maxAttempts, leaseMs, keyStore }),
    replayGuard: await KvReplayGuard.open(kv, { now: options.now }),
    state: new KvStateStore(kv),
    ...(keyStore && { jobTextKeys: keyStore }),
  };
}
