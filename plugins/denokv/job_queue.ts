/**
 * `KvJobQueue`: the job queue in Deno KV, what the relayer runs on: the state machine of
 * `StoredJobQueue` over a `KvJobStore` (`job_store.ts` says how the jobs are kept).
 */
import { type JobQueueOptions, StoredJobQueue } from "@svc/relayer/kit";
import { KvJobStore } from "./job_store.ts";

/**
 * The job queue in Deno KV.
 *
 * @example
 * ```ts
 * const queue = await KvJobQueue.open(await Deno.openKv(path), secret, { maxAttempts: 5 });
 * ```
 */
export class KvJobQueue extends StoredJobQueue {
  /** Opens the queue on `kv`; `secret` (32 bytes) seals its records and waiting texts. */
  static async open(
    kv: Deno.Kv,
    secret: Uint8Array<ArrayBuffer>,
    options: JobQueueOptions = {},
  ): Promise<KvJobQueue> {
    return new KvJobQueue(await KvJobStore.open(kv, secret), options);
  }
}
