/**
 * `MemoryJobQueue`: the job queue in memory, the twin of `@svc/denokv`'s `KvJobQueue` for tests and for
 * embedding the services without Deno KV: the state machine of `StoredJobQueue` over a
 * `MemoryJobStore`. It passes the same conformance suite; what it does not do is outlive its
 * process: records, texts and messages are gone with it, records do not expire, and failures
 * leave no dead letter.
 */
import type { JobQueueOptions } from "../jobs/job_queue.ts";
import { MemoryJobStore } from "./memory_job_store.ts";
import { StoredJobQueue } from "../jobs/stored_job_queue.ts";

/**
 * The job queue in memory. `close()` (or `using`) stops listening and cancels delayed
 * messages.
 *
 * @example
 * ```ts
 * using queue = new MemoryJobQueue({ maxAttempts: 3 });
 * const [job] = await queue.accept([{ owner, namespace: "default", text: "I keep bees" }]);
 * ```
 */
export class MemoryJobQueue extends StoredJobQueue implements Disposable {
  readonly #store: MemoryJobStore;

  /** An empty queue; leases last 120 s and jobs get 5 attempts unless `options` say otherwise. */
  constructor(options: JobQueueOptions = {}) {
    const store = new MemoryJobStore();
    super(store, options);
    this.#store = store;
  }

  /** Stops listening; delayed messages, and any enqueued later, wait undelivered. */
  close(): void {
    this.#store.close();
  }

  /** Closes the queue, as `close` does. */
  [Symbol.dispose](): void {
    this.close();
  }
}
