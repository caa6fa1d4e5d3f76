/**
 * `KvJobQueue`: the job queue in Deno KV, what the relayer runs on: the state machine of
 * `StoredJobQueue` over a `KvJobStore` (`job_store.ts` says how the jobs are kept).
 */
import { type JobQueueOptions, type KeyStore, StoredJobQueue } from "@svc/relayer/kit";
import { KvJobStore } from "./job_store.ts";

/** What {@link KvJobQueue.open} takes besides the store and the secret. */
export interface KvJobQueueOptions extends JobQueueOptions {
  /**
   * Where the keys of the waiting texts are kept (the relayer's `keys.sqlite`): erasing a
   * memory there erases its job's key, and what `jobs.kv` still holds of its text no longer
   * opens. Without it the texts are sealed under a key derived from the secret, which erases
   * nothing: for a KV in memory (tests, tools) only.
   */
  keyStore?: KeyStore;
}

/**
 * The job queue in Deno KV.
 *
 * @example
 * ```ts
 * const queue = await KvJobQueue.open(await Deno.openKv(path), secret, {
 *   keyStore,
 *   maxAttempts: 5,
 * });
 * ```
 */
export class KvJobQueue extends StoredJobQueue {
  /** Opens the queue on `kv`; `secret` (32 bytes) seals its records and wraps its texts' keys. */
  static async open(
    kv: Deno.Kv,
    secret: Uint8Array<ArrayBuffer>,
    options: KvJobQueueOptions = {},
  ): Promise<KvJobQueue> {
    const { keyStore, ...queueOptions } = options;
    return new KvJobQueue(await KvJobStore.open(kv, secret, keyStore), queueOptions);
  }
}
