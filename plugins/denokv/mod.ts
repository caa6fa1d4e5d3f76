/**
 * The relayer's state in Deno KV (the data directory's `jobs.kv`): a `StateStore` and a
 * `MessageQueue`, the two seams the core keeps the job queue, the replay guard, the erased
 * memories and expiry schedule, the access log and a reindex's progress in. One relayer owns a
 * store; `@svc/postgres` keeps the same state for several relayers.
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
import { openStateStores, type StateStoreOptions, type StateStores } from "@svc/relayer/kit";
import { KvMessageQueue } from "./message_queue.ts";
import { KvStateStore } from "./state_store.ts";

export type {
  AcceptOptions,
  CarriedClaim,
  CiphertextToSave,
  EnqueueOptions,
  JobCompletion,
  JobHandler,
  JobInput,
  JobMessage,
  JobQueue,
  JobQueueOptions,
  JobRecord,
  JobStatus,
  KeyPlace,
  KeyStore,
  ListenOptions,
  MessageQueue,
  PendingClaim,
  PublicJob,
  ReplayGuard,
  StateBatch,
  StateEntry,
  StateKey,
  StateKeyPart,
  StateListOptions,
  StateSelector,
  StateSetOptions,
  StateStore,
  StateStoreOptions,
  StateStores,
} from "@svc/relayer/kit";
export { KvStateStore } from "./state_store.ts";
export { KvMessageQueue } from "./message_queue.ts";

/** Opens the relayer's stores in `kv`; `secret` (the relayer's 32 bytes) seals what they keep. */
export async function openKvStores(
  kv: Deno.Kv,
  secret: Uint8Array<ArrayBuffer>,
  options: StateStoreOptions = {},
): Promise<StateStores> {
  return await openStateStores(new KvStateStore(kv), new KvMessageQueue(kv), secret, options);
}
