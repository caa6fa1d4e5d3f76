/**
 * The relayer's message seam: a queue that delivers each message at least once, after an
 * optional delay. With `StateStore` it is all a backend implements for the relayer's jobs:
 * `StateJobStore` keeps the jobs in the state and wakes the worker with messages. A message lost
 * (a crash between a commit and its enqueue, a queue that gave up on one) loses no job of a
 * relayer's own store: the reconciler delivers a pending job again once its lease has passed. `@svc/denokv` delivers in
 * Deno KV's queue; `MemoryMessageQueue` (in the testing module) in process memory.
 *
 * @example
 * ```ts
 * const messages: MessageQueue = new MemoryMessageQueue();
 * const done = new AbortController();
 * messages.listen(async (message) => console.log(message), done.signal);
 * await messages.enqueue({ job_id: "0f1e…" }, { delayMs: 1000 });
 * ```
 * @module
 */

/** How a message is enqueued. */
export interface EnqueueOptions {
  /** Milliseconds before it is delivered (default 0). */
  delayMs?: number;
}

/** Delivers messages at least once; see the module documentation. */
export interface MessageQueue {
  /** Enqueues `message` (what structured clone copies); durable once this resolves. */
  enqueue(message: unknown, options?: EnqueueOptions): Promise<void>;
  /**
   * Delivers the messages to `handler` until `signal` aborts, at least once each: one whose
   * handler rejects is delivered again later. Listened to once; resolves when listening stops.
   */
  listen(handler: (message: unknown) => Promise<void>, signal?: AbortSignal): Promise<void>;
}
