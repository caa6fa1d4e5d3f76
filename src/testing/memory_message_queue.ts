/**
 * `MemoryMessageQueue`: a `MessageQueue` in process memory, for tests and for embedding the
 * services without a store. Its messages are gone with its process.
 */
import { SvcError } from "../errors.ts";
import type { EnqueueOptions, MessageQueue } from "../jobs/message_queue.ts";

/** Milliseconds before a message whose handler rejected is delivered again. */
const REDELIVER_MS = 1000;

/**
 * Messages in memory. `close()` (or `using`) stops listening and cancels delayed messages.
 *
 * @example
 * ```ts
 * using messages = new MemoryMessageQueue();
 * messages.listen(async (message) => console.log(message));
 * await messages.enqueue({ job_id: "0f1e…" });
 * ```
 */
export class MemoryMessageQueue implements MessageQueue, Disposable {
  /** Messages due, waiting for a listener. */
  readonly #due: unknown[] = [];
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #handler?: (message: unknown) => Promise<void>;
  #stop?: () => void;
  #closed = false;

  enqueue(message: unknown, { delayMs = 0 }: EnqueueOptions = {}): Promise<void> {
    this.#after(delayMs, structuredClone(message));
    return Promise.resolve();
  }

  /** Delivers due messages until `signal` aborts (or the queue closes); later ones wait. */
  listen(handler: (message: unknown) => Promise<void>, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    if (this.#handler) {
      return Promise.reject(
        new SvcError("internal", "Cannot listen to the message queue: it already has a listener"),
      );
    }
    this.#handler = handler;
    return new Promise<void>((resolve) => {
      this.#stop = () => {
        this.#handler = undefined;
        this.#stop = undefined;
        resolve();
      };
      signal?.addEventListener("abort", () => this.#stop?.(), { once: true });
      this.#deliverDue();
    });
  }

  /** Stops delivering; delayed messages, and any enqueued later, wait undelivered. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#stop?.();
  }

  /** Closes the queue, as `close` does. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** Makes `message` due after `delayMs` (at once while closed: it waits undelivered). */
  #after(delayMs: number, message: unknown): void {
    if (delayMs <= 0 || this.#closed) {
      this.#due.push(message);
      this.#deliverDue();
      return;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#due.push(message);
      this.#deliverDue();
    }, delayMs);
    this.#timers.add(timer);
  }

  /**
   * Hands every due message to the listener, asynchronously (never within the call that
   * enqueued it); one whose turn comes after listening stopped waits again.
   */
  #deliverDue(): void {
    const handler = this.#handler;
    if (!handler) return;
    for (const message of this.#due.splice(0)) {
      Promise.resolve().then(() => {
        if (this.#handler === handler) return handler(message);
        this.#due.push(message);
      }).catch(() => this.#after(REDELIVER_MS, message));
    }
  }
}
