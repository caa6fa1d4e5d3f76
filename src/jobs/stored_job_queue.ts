/**
 * `StoredJobQueue`: the job state machine, written once over a `JobStore`. It decides every
 * change a job goes through (`job_transitions.ts`) and asks the store to apply it only while the
 * job is still as the caller saw it; a delivery whose handler fails is delivered again after the
 * backoff schedule.
 */
import { SvcError } from "../errors.ts";
import type {
  AcceptOptions,
  CiphertextToSave,
  JobCompletion,
  JobHandler,
  JobInput,
  JobQueue,
  JobQueueOptions,
  JobRecord,
  ListenOptions,
} from "./job_queue.ts";
import { LeaseLost } from "./job_queue.ts";
import type { JobStore, JobWrite } from "./job_store.ts";
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
} from "./job_transitions.ts";

/** The job queue over `store`; see the module documentation. */
export class StoredJobQueue implements JobQueue {
  readonly leaseMs: number;
  readonly maxAttempts: number;
  readonly shared?: boolean;
  readonly #store: JobStore;
  readonly #now: () => number;
  #listened = false;

  /** A queue over `store`; leases last 120 s and jobs get 5 attempts unless `options` say. */
  constructor(store: JobStore, options: JobQueueOptions = {}) {
    this.#store = store;
    this.shared = store.shared;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.#now = options.now ?? Date.now;
  }

  async accept(inputs: JobInput[], options: AcceptOptions = {}): Promise<JobRecord[]> {
    const now = new Date(this.#now()).toISOString();
    const records = inputs.map((input) => acceptedRecord(input, now));
    if (records.length === 0) {
      await options.claim?.settle();
      return records;
    }
    await this.#store.create(records, inputs.map((input) => input.text), options.claim);
    return records;
  }

  async get(jobId: string): Promise<JobRecord | null> {
    return (await this.#store.read([jobId]))[0];
  }

  getMany(jobIds: string[]): Promise<(JobRecord | null)[]> {
    return this.#store.read(jobIds);
  }

  async payload(jobId: string): Promise<string | null> {
    return (await this.#store.texts([jobId]))[0];
  }

  payloads(jobIds: string[]): Promise<(string | null)[]> {
    return this.#store.texts(jobIds);
  }

  async lease(jobId: string, worker: string): Promise<JobRecord | null> {
    return (await this.leaseMany([jobId], worker))[0];
  }

  /**
   * Takes each job it may (see `leaseDecision`: a job this queue leases is never held by its
   * worker already); one out of attempts is failed instead. The decision is made again on the
   * stored record as it is written, so a lease renewed meanwhile is not taken over.
   */
  async leaseMany(jobIds: string[], worker: string): Promise<(JobRecord | null)[]> {
    const unique = [...new Set(jobIds)];
    const records = await this.#store.read(unique);
    const now = this.#now();
    const writes: JobWrite[] = [];
    const exhausted: JobRecord[] = [];
    const takes = (record: JobRecord | null) => leaseDecision(record, now, this.maxAttempts);
    for (const record of records) {
      const decision = takes(record);
      if (decision === "exhausted") exhausted.push(record!);
      if (decision !== "take") continue;
      writes.push({
        seen: record!,
        change: (stored) =>
          takes(stored) === "take" ? leasedRecord(stored, worker, this.leaseMs, now) : null,
      });
    }
    for (const record of exhausted) await this.#exhaust(record);
    const leased = new Map<string, JobRecord>();
    for (const record of await this.#store.write(writes)) {
      if (record) leased.set(record.job_id, record);
    }
    const given = new Set<string>();
    return jobIds.map((id) => {
      if (given.has(id)) return null;
      given.add(id);
      return leased.get(id) ?? null;
    });
  }

  /** Fails a job out of attempts; another change that got there first leaves nothing to do. */
  async #exhaust(record: JobRecord): Promise<void> {
    await this.fail(record, exhaustedError(record, this.maxAttempts)).catch((error) => {
      if (!(error instanceof LeaseLost)) throw error;
    });
  }

  async renew(record: JobRecord): Promise<JobRecord | null> {
    if (record.status !== "running") return null;
    const now = this.#now();
    return await this.#one({ seen: record, change: (s) => renewedRecord(s, this.leaseMs, now) });
  }

  checkpoint(record: JobRecord, patch: Partial<JobRecord>): Promise<JobRecord> {
    const now = this.#now();
    return this.#held(record, { change: (s) => checkpointedRecord(s, patch, now) });
  }

  async saveCiphertext(record: JobRecord, ciphertext: Uint8Array<ArrayBuffer>): Promise<void> {
    await this.#held(record, { change: (stored) => stored, ciphertext });
  }

  async saveCiphertexts(items: CiphertextToSave[]): Promise<boolean[]> {
    const written = await this.#store.write(
      items.map(({ record, ciphertext }) => ({ seen: record, change: (s) => s, ciphertext })),
    );
    return written.map((record) => record !== null);
  }

  ciphertext(jobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    return this.#store.ciphertexts([jobId]).then(([ciphertext]) => ciphertext);
  }

  ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]> {
    return this.#store.ciphertexts(jobIds);
  }

  async complete(record: JobRecord, patch: Partial<JobRecord>): Promise<void> {
    const now = this.#now();
    await this.#held(record, { change: (s) => completedRecord(s, patch, now), finished: true });
  }

  async completeMany(items: JobCompletion[]): Promise<boolean[]> {
    const now = this.#now();
    const written = await this.#store.write(items.map(({ record, patch }) => ({
      seen: record,
      change: (stored) => completedRecord(stored, patch, now),
      finished: true,
    })));
    return written.map((record) => record !== null);
  }

  async fail(record: JobRecord, error: string): Promise<void> {
    const now = this.#now();
    await this.#held(record, {
      change: (stored) => failedRecord(stored, error, now),
      finished: true,
      deadLetter: error,
    });
  }

  async retry(
    record: JobRecord,
    error: string | undefined,
    delayMs: number,
    options: { counted?: boolean } = {},
  ): Promise<void> {
    const now = this.#now();
    await this.#held(record, {
      change: (stored) => retriedRecord(stored, error, now, options.counted),
      enqueueAfterMs: delayMs,
    });
  }

  async interrupted(record: JobRecord): Promise<void> {
    const now = this.#now();
    await this.#held(record, {
      change: (stored) => interruptedRecord(stored, now),
      enqueueAfterMs: 0,
    });
  }

  redrive(jobId: string): Promise<void> {
    return this.#store.enqueue([jobId]);
  }

  active(): AsyncIterable<JobRecord> {
    return this.#store.active();
  }

  /**
   * Listens once. A delivery whose handler fails is delivered again after `BACKOFF_SCHEDULE`'s
   * next delay for that message, until the schedule runs out (the reconciler re-drives the job
   * then).
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
    return this.#store.listen(async ({ job_id, failures }) => {
      try {
        await handler({ job_id });
      } catch {
        const delay = BACKOFF_SCHEDULE[failures];
        if (delay !== undefined) await this.#store.enqueue([job_id], delay, failures + 1);
      }
    }, signal);
  }

  /** Applies one change; `null` when the job moved on. */
  async #one(write: JobWrite): Promise<JobRecord | null> {
    return (await this.#store.write([write]))[0];
  }

  /** Applies one change to a job `record`'s worker holds; throws `LeaseLost` when it moved on. */
  async #held(record: JobRecord, write: Omit<JobWrite, "seen">): Promise<JobRecord> {
    const written = await this.#one({ seen: record, ...write });
    if (!written) throw new LeaseLost(record.job_id);
    return written;
  }
}
