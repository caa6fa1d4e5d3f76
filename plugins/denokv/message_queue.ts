/**
 * The relayer's `MessageQueue` in Deno KV's own queue (the data directory's `jobs.kv`).
 *
 * @example
 * ```ts
 * const messages = new KvMessageQueue(await Deno.openKv(`${dataDir}/jobs.kv`));
 * await messages.enqueue({ job_id: "0f1e…" }, { delayMs: 1000 });
 * ```
 * @module
 */
import type { EnqueueOptions, MessageQueue } from "@svc/relayer/kit";
import { retryWhileLocked } from "@svc/util/kv_locked";

/** A `MessageQueue` over one Deno KV; the caller closes the KV. */
export class KvMessageQueue implements MessageQueue {
  readonly #kv: Deno.Kv;

  /** The queue of `kv`. */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** An enqueue met by another handle's write lock on the file is tried again (see kv_locked). */
  async enqueue(message: unknown, { delayMs = 0 }: EnqueueOptions = {}): Promise<void> {
    await retryWhileLocked(() => this.#kv.enqueue(message, { delay: delayMs }));
  }

  /**
   * Deno KV cannot stop a queue listener before its KV handle closes, and would share the
   * messages among several listeners, so listen once. When `signal` aborts, the returned
   * promise resolves and later deliveries are acknowledged without reaching `handler`: their
   * jobs stay `pending` in their records, and the reconciler re-drives them at the next start.
   * The underlying listener ends when the KV handle is closed.
   */
  listen(handler: (message: unknown) => Promise<void>, signal?: AbortSignal): Promise<void> {
    const listening = this.#kv.listenQueue(async (message: unknown) => {
      if (!signal?.aborted) await handler(message);
    });
    if (!signal) return listening;
    return new Promise<void>((resolve, reject) => {
      signal.addEventListener("abort", () => resolve(), { once: true });
      listening.then(resolve, reject);
    });
  }
}
