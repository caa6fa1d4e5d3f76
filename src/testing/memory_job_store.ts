/**
 * `MemoryJobStore`: a `JobStore` in memory, for tests and for embedding the services without
 * Deno KV. Nothing outlives the process, records do not expire, and it keeps no dead letter.
 */
import type { JobRecord } from "../jobs/job_queue.ts";
import type { CreateOptions, JobStore, JobWrite, StoredMessage } from "../jobs/job_store.ts";
import { stillAsSeen } from "../jobs/job_transitions.ts";
import { MemoryMessageQueue } from "./memory_message_queue.ts";

/** Jobs in memory; `close()` (or `using`) stops delivering and cancels delayed messages. */
export class MemoryJobStore implements JobStore, Disposable {
  readonly #records = new Map<string, JobRecord>();
  readonly #texts = new Map<string, string>();
  readonly #ciphertexts = new Map<string, Uint8Array<ArrayBuffer>>();
  readonly #messages = new MemoryMessageQueue();

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
    return this.#messages.listen((message) => handler(message as StoredMessage), signal);
  }

  /** Stops delivering; delayed messages, and any enqueued later, wait undelivered. */
  close(): void {
    this.#messages.close();
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
    for (const job_id of jobIds) this.#messages.enqueue({ job_id, failures }, { delayMs });
  }
}
