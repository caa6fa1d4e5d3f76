/**
 * The relayer's stores over the two seams a backend implements: the job queue (`StateJobStore`
 * under the state machine of `StoredJobQueue`) and the replay guard (`StateReplayGuard`), both
 * in one `StateStore`, the queue delivering by a `MessageQueue`. `@svc/denokv`'s `openKvStores`
 * is this over Deno KV.
 *
 * @example
 * ```ts
 * const state = new MemoryStateStore();
 * const stores = await openStateStores(state, new MemoryMessageQueue(), secret);
 * const relayer = await createRelayer({ ...stores, secret, directory, cipher, blobs, vectors, embedder });
 * ```
 * @module
 */
import type { ReplayGuard } from "./auth/replay_guard.ts";
import { StateReplayGuard } from "./auth/state_replay_guard.ts";
import type { KeyStore } from "./backends/key_store.ts";
import type { StateStore } from "./state/state_store.ts";
import type { JobQueue, JobQueueOptions } from "./jobs/job_queue.ts";
import type { MessageQueue } from "./jobs/message_queue.ts";
import { StateJobStore } from "./jobs/state_job_store.ts";
import { StoredJobQueue } from "./jobs/stored_job_queue.ts";

/** The relayer's stores in one `StateStore`, as `createRelayer` takes them. */
export interface StateStores {
  /** The job queue. */
  queue: JobQueue;
  /** The signed requests already used. */
  replayGuard: ReplayGuard;
  /** Everything else: the access log, the erased memories and the expiry schedule. */
  state: StateStore;
  /** The key store the job queue keeps its texts' keys in, when given one. */
  jobTextKeys?: KeyStore;
}

/** What {@link openStateStores} takes besides the stores and the secret. */
export interface StateStoreOptions {
  /**
   * Where the keys of the jobs' waiting texts are kept (the relayer's `keys.sqlite`, shared with
   * the local cipher): recording a memory erased erases its job's key there, so what the state
   * still holds of its text no longer opens. Without it the texts are sealed under a key derived
   * from the secret, which nothing erases: for a state in memory (tests, tools) only.
   */
  keyStore?: KeyStore;
  /** Attempts before a remember job is marked failed (default 5). */
  maxAttempts?: number;
  /** How long a worker holds a remember job before it may be taken over (default 120 s). */
  leaseMs?: number;
  /** The replay guard's clock: the one signed requests are checked with (default `Date.now`). */
  now?: () => number;
}

/** Opens the relayer's stores in `state`; `secret` (the relayer's 32 bytes) seals what they keep. */
export async function openStateStores(
  state: StateStore,
  messages: MessageQueue,
  secret: Uint8Array<ArrayBuffer>,
  options: StateStoreOptions = {},
): Promise<StateStores> {
  const { maxAttempts, leaseMs, keyStore } = options;
  return {
    queue: await openStateJobQueue(state, messages, secret, { maxAttempts, leaseMs, keyStore }),
    replayGuard: await StateReplayGuard.open(state, { now: options.now }),
    state,
    ...(keyStore && { jobTextKeys: keyStore }),
  };
}

/**
 * The job queue of `openStateStores` alone: `StoredJobQueue` over a `StateJobStore` in `state`,
 * its texts' keys in `options.keyStore` when given.
 */
export async function openStateJobQueue(
  state: StateStore,
  messages: MessageQueue,
  secret: Uint8Array<ArrayBuffer>,
  { keyStore, ...options }: JobQueueOptions & { keyStore?: KeyStore } = {},
): Promise<StoredJobQueue> {
  return new StoredJobQueue(await StateJobStore.open(state, messages, secret, keyStore), options);
}
