/**
 * `MemoryJobQueue`: the job queue in memory, the twin of `KvJobQueue` for tests and for
 * embedding the services without Deno KV. It passes the same conformance suite; what it does
 * not do is outlive its process: records, texts (kept as they are, in memory only) and
 * messages are gone with it, records do not expire, and failures leave no dead letter.
 */
import { SvcError } from "../errors.ts";
import {
  type AcceptOptions,
  type CiphertextToSave,
  type JobCompletion,
  type JobHandler,
  type JobInput,
  type JobQueue,
  type JobQueueOptions,
  type JobRecord,
  LeaseLost,
  type ListenOptions,
} from "./job_queue.ts";
import {
  acceptedRecord,
  BACKOFF_SCHEDULE,
  checkpointedRecord,
  completedRecord,
  exhaustedError,
  failedRecord,
  interruptedRecord,
  leaseDecision,
  leasedRecord,
  renewedRecord,
  retriedRecord,
  stillAsSeen,
} from "./job_transitions.ts";

interface Message {
  jobId: string;
  /** Deliveries of this message whose handler failed. */
  failures: number;
}

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
export class MemoryJobQueue implements JobQueue, Disposable {
  readonly leaseMs: number;
  readonly maxAttempts: number;
  #now: () => number;
  #records = new Map<string, JobRecord>();
  #payloads = new Map<string, string>();
  #ciphertexts = new Map<string, Uint8Array<ArrayBuffer>>();
  /** Messages due, waiting for a listener. */
  #due: Message[] = [];
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #handler?: JobHandler;
  #listened = false;
  #stop?: () => void;
  #closed = false;

  /** An empty queue; leases last 120 s and jobs get 5 attempts unless `options` say otherwise. */
  constructor(options: JobQueueOptions = {}) {
    this.leaseMs = options.leaseMs ?? 120_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.#now = options.now ?? Date.now;
  }

  /** As `JobQueue.accept`; the request's replay claim is settled first. */
  async accept(inputs: JobInput[], options: AcceptOptions = {}): Promise<JobRecord[]> {
    await options.claim?.settle();
    const now = new Date(this.#now()).toISOString();
    const records = inputs.map((input) => acceptedRecord(input, now));
    records.forEach((record, i) => {
      this.#save(record);
      this.#payloads.set(record.job_id, inputs[i].text);
    });
    for (const record of records) this.#enqueue({ jobId: record.job_id, failures: 0 });
    return structuredClone(records);
  }

  get(jobId: string): Promise<JobRecord | null> {
    return Promise.resolve(this.#load(jobId));
  }

  getMany(jobIds: string[]): Promise<(JobRecord | null)[]> {
    return Promise.resolve(jobIds.map((jobId) => this.#load(jobId)));
  }

  payload(jobId: string): Promise<string | null> {
    return Promise.resolve(this.#payloads.get(jobId) ?? null);
  }

  payloads(jobIds: string[]): Promise<(string | null)[]> {
    return Promise.resolve(jobIds.map((jobId) => this.#payloads.get(jobId) ?? null));
  }

  async lease(jobId: string, worker: string): Promise<JobRecord | null> {
    const record = this.#load(jobId);
    const now = this.#now();
    const decision = leaseDecision(record, now, this.maxAttempts);
    if (decision === "exhausted") {
      await this.fail(record!, exhaustedError(record!, this.maxAttempts));
    }
    if (decision !== "take") return null;
    return this.#save(leasedRecord(record!, worker, this.leaseMs, now));
  }

  async leaseMany(jobIds: string[], worker: string): Promise<(JobRecord | null)[]> {
    const out: (JobRecord | null)[] = [];
    for (const jobId of jobIds) out.push(await this.lease(jobId, worker));
    return out;
  }

  renew(record: JobRecord): Promise<JobRecord | null> {
    const stored = this.#load(record.job_id);
    if (record.status !== "running" || !stillAsSeen(stored, record)) return Promise.resolve(null);
    return Promise.resolve(this.#save(renewedRecord(stored, this.leaseMs, this.#now())));
  }

  checkpoint(record: JobRecord, patch: Partial<JobRecord>): Promise<JobRecord> {
    return this.#asSeen(
      record,
      (stored) => this.#save(checkpointedRecord(stored, patch, this.#now())),
    );
  }

  saveCiphertext(record: JobRecord, ciphertext: Uint8Array<ArrayBuffer>): Promise<void> {
    return this.#asSeen(
      record,
      () => void this.#ciphertexts.set(record.job_id, ciphertext.slice()),
    );
  }

  saveCiphertexts(items: CiphertextToSave[]): Promise<boolean[]> {
    return this.#eachAsSeen(items, ({ record, ciphertext }) => {
      this.#ciphertexts.set(record.job_id, ciphertext.slice());
    });
  }

  ciphertext(jobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    return Promise.resolve(this.#ciphertexts.get(jobId)?.slice() ?? null);
  }

  ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]> {
    return Promise.resolve(jobIds.map((jobId) => this.#ciphertexts.get(jobId)?.slice() ?? null));
  }

  complete(record: JobRecord, patch: Partial<JobRecord>): Promise<void> {
    return this.#asSeen(
      record,
      (stored) => this.#finish(completedRecord(stored, patch, this.#now())),
    );
  }

  completeMany(items: JobCompletion[]): Promise<boolean[]> {
    return this.#eachAsSeen(items, ({ patch }, stored) => {
      this.#finish(completedRecord(stored, patch, this.#now()));
    });
  }

  fail(record: JobRecord, error: string): Promise<void> {
    return this.#asSeen(record, (stored) => this.#finish(failedRecord(stored, error, this.#now())));
  }

  retry(
    record: JobRecord,
    error: string | undefined,
    delayMs: number,
    options: { counted?: boolean } = {},
  ): Promise<void> {
    return this.#asSeen(record, (stored) => {
      this.#save(retriedRecord(stored, error, this.#now(), options.counted));
      this.#enqueue({ jobId: record.job_id, failures: 0 }, delayMs);
    });
  }

  interrupted(record: JobRecord): Promise<void> {
    return this.#asSeen(record, (stored) => {
      this.#save(interruptedRecord(stored, this.#now()));
      this.#enqueue({ jobId: record.job_id, failures: 0 });
    });
  }

  redrive(jobId: string): Promise<void> {
    this.#enqueue({ jobId, failures: 0 });
    return Promise.resolve();
  }

  async *active(): AsyncGenerator<JobRecord> {
    const active = [...this.#records.values()]
      .filter((record) => record.status !== "done" && record.status !== "failed");
    for (const record of active) yield structuredClone(record);
  }

  /**
   * Listens once, as `KvJobQueue` does. When `signal` aborts (or the queue closes), the
   * returned promise resolves and no message is delivered any more: their jobs stay
   * `pending`, as with `KvJobQueue`.
   */
  listen(handler: JobHandler, options: ListenOptions = {}): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return Promise.resolve();
    if (this.#listened) {
      return Promise.reject(
        new SvcError("internal", "Cannot listen to the job queue: it already has a listener"),
      );
    }
    this.#listened = true;
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

  /** Stops listening; delayed messages, and any enqueued later, wait undelivered. */
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

  /** Runs `change` on the stored record if the job is still as `seen` shows it. */
  #asSeen<T>(seen: JobRecord, change: (stored: JobRecord) => T): Promise<T> {
    const stored = this.#load(seen.job_id);
    if (!stillAsSeen(stored, seen)) return Promise.reject(new LeaseLost(seen.job_id));
    return Promise.resolve(change(stored));
  }

  /** Runs `change` for each item whose job is still as its record shows; says which ran. */
  #eachAsSeen<T extends { record: JobRecord }>(
    items: T[],
    change: (item: T, stored: JobRecord) => void,
  ): Promise<boolean[]> {
    return Promise.resolve(items.map((item) => {
      const stored = this.#load(item.record.job_id);
      if (!stillAsSeen(stored, item.record)) return false;
      change(item, stored);
      return true;
    }));
  }

  #finish(record: JobRecord): void {
    this.#save(record);
    this.#payloads.delete(record.job_id);
    this.#ciphertexts.delete(record.job_id);
  }

  #load(jobId: string): JobRecord | null {
    const record = this.#records.get(jobId);
    return record ? structuredClone(record) : null;
  }

  #save(record: JobRecord): JobRecord {
    this.#records.set(record.job_id, structuredClone(record));
    return record;
  }

  #enqueue(message: Message, delayMs = 0): void {
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
   * enqueued it); a message whose turn comes after listening stopped waits again.
   */
  #deliverDue(): void {
    const handler = this.#handler;
    if (!handler) return;
    for (const message of this.#due.splice(0)) {
      Promise.resolve().then(() => {
        if (this.#handler === handler) return handler({ job_id: message.jobId });
        this.#due.push(message);
      }).catch(() => {
        const delay = BACKOFF_SCHEDULE[message.failures];
        if (delay !== undefined) {
          this.#enqueue({ ...message, failures: message.failures + 1 }, delay);
        }
      });
    }
  }
}
