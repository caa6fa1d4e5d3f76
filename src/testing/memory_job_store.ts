/**
 * `MemoryJobStore`: a `JobStore` in memory, for tests and for embedding the services without
 * Deno KV. Nothing outlives the process, records do not expire, and it keeps no dead letter.
 */
import { SvcError } from "../errors.ts";
import type { JobRecord } from "../jobs/job_queue.ts";
import type { CreateOptions, JobStore, JobWrite, StoredMessage } from "../jobs/job_store.ts";
import { stillAsSeen } from "../jobs/job_transitions.ts";

/** Jobs in memory; `close()` (or `using`) stops delivering and cancels delayed messages. */
export class MemoryJobStore implements JobStore, Disposable {
  readonly #records = new Map<string, JobRecord>();
  readonly #texts = new Map<string, string>();
  readonly #ciphertexts = new Map<string, Uint8Array<ArrayBuffer>>();
  /** Messages due, waiting for a listener. */
  #due: StoredMessage[] = [];
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #handler?: (message: StoredMessage) => Promise<void>;
  #stop?: () => void;
  #closed = false;

  async create(records: JobRecord[], texts: string[], options: CreateOptions = {}): Promise<void> {
    await options.claim?.settle();
    records.forEach((record, i) => {
      this.#records.set(record.job_id, structuredClone(record));
      this.#texts.set(record.job_id, texts[i]);
    });
    if (options.deliver !== false) this.#enqueue(records.map((record) => record.job_id), 0, 0);
  }

  read(jobIds: string[]): Promise<(JobRecord | null)[]> {
    return Promise.resolve(jobIds.map((jobId) => this.#load(jobId)));
  }

  write(changes: JobWrite[]): Promise<(JobRecord | null)[]> {
    return Promise.resolve(changes.map((write) => this.#apply(write)));
  }

  #apply({ seen, change, ciphertext, finished, enqueueAfterMs }: JobWrite): JobRecord | null {
    const stored = this.#load(seen.job_id);
    if (!stillAsSeen(stored, seen)) return null;
    const next = change(stored);
    if (!next) return null;
    this.#records.set(next.job_id, structuredClone(next));
    if (ciphertext) this.#ciphertexts.set(next.job_id, ciphertext.slice());
    if (finished) {
      this.#texts.delete(next.job_id);
      this.#ciphertexts.delete(next.job_id);
    }
    if (enqueueAfterMs !== undefined) this.#enqueue([next.job_id], enqueueAfterMs, 0);
    return next;
  }

  texts(jobIds: string[]): Promise<(string | null)[]> {
    return Promise.resolve(jobIds.map((jobId) => this.#texts.get(jobId) ?? null));
  }

  ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]> {
    return Promise.resolve(jobIds.map((jobId) => this.#ciphertexts.get(jobId)?.slice() ?? null));
  }

  enqueue(jobIds: string[], delayMs = 0, failures = 0): Promise<void> {
    this.#enqueue(jobIds, delayMs, failures);
    return Promise.resolve();
  }

  async *active(): AsyncGenerator<JobRecord> {
    const active = [...this.#records.values()]
      .filter((record) => record.status !== "done" && record.status !== "failed");
    for (const record of active) yield structuredClone(record);
  }

  /** Delivers due jobs until `signal` aborts (or the store closes); later ones wait. */
  listen(
    handler: (message: StoredMessage) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    if (this.#handler) {
      return Promise.reject(
        new SvcError("internal", "Cannot listen to the job store: it already has a listener"),
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

  /** Closes the store, as `close` does. */
  [Symbol.dispose](): void {
    this.close();
  }

  #load(jobId: string): JobRecord | null {
    const record = this.#records.get(jobId);
    return record ? structuredClone(record) : null;
  }

  #enqueue(jobIds: string[], delayMs: number, failures: number): void {
    const messages = jobIds.map((job_id) => ({ job_id, failures }));
    if (delayMs <= 0 || this.#closed) {
      this.#due.push(...messages);
      this.#deliverDue();
      return;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#due.push(...messages);
      this.#deliverDue();
    }, delayMs);
    this.#timers.add(timer);
  }

  /**
   * Hands every due job to the listener, asynchronously (never within the call that enqueued
   * it); one whose turn comes after listening stopped waits again.
   */
  #deliverDue(): void {
    const handler = this.#handler;
    if (!handler) return;
    for (const message of this.#due.splice(0)) {
      Promise.resolve().then(() => {
        if (this.#handler === handler) return handler(message);
        this.#due.push(message);
      }).catch(() => {});
    }
  }
}
