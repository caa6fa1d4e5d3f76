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
import { HandedJobs } from "./handed_jobs.ts";
import type { JobStore, JobWrite, StoredMessage } from "./job_store.ts";
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

/** The options of a `StoredJobQueue`. */
export interface StoredJobQueueOptions extends JobQueueOptions {
  /**
   * Jobs handed to the listener at acceptance and not leased yet, at most (default: no limit);
   * the jobs of an accept past it are delivered by the store, which may deliver them to another
   * process's listener.
   */
  maxHanded?: number;
}

/** The job queue over `store`; see the module documentation. */
export class StoredJobQueue implements JobQueue {
  readonly leaseMs: number;
  readonly maxAttempts: number;
  readonly shared?: boolean;
  readonly #store: JobStore;
  readonly #now: () => number;
  #listened = false;
  /** The listener, while one listens: how to hand it a job, and the worker it hands jobs to. */
  #listener?: { deliver(jobId: string, owner: string): void; worker?: ListenOptions["worker"] };
  readonly #handed = new HandedJobs();
  readonly #maxHanded: number;

  /** A queue over `store`; leases last 120 s and jobs get 5 attempts unless `options` say. */
  constructor(store: JobStore, options: StoredJobQueueOptions = {}) {
    this.#store = store;
    this.#maxHanded = options.maxHanded ?? Infinity;
    this.shared = store.shared;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.#now = options.now ?? Date.now;
  }

  /**
   * While the queue is listened to, hands the jobs to the listener in this process instead of a
   * message (`CreateOptions.deliver`), up to `maxHanded` waiting, leased to its worker when it
   * would start them at once (`ListenOptions.worker`). The records returned are as accepted.
   */
  async accept(inputs: JobInput[], options: AcceptOptions = {}): Promise<JobRecord[]> {
    const now = this.#now();
    const records = inputs.map((input) => acceptedRecord(input, new Date(now).toISOString()));
    if (records.length === 0) {
      await options.claim?.settle();
      return records;
    }
    const texts = inputs.map((input) => input.text);
    const room = this.#handed.waiting + records.length <= this.#maxHanded;
    const listener = room ? this.#listener : undefined;
    const worker = listener?.worker?.ready(records.length) ? listener.worker.id : undefined;
    const created = worker
      ? records.map((record) => leasedRecord(record, worker, this.leaseMs, now))
      : records;
    await this.#store.create(created, texts, { claim: options.claim, deliver: !listener });
    // Not when the listener stopped meanwhile: its jobs are left to the store and the reconciler.
    if (!listener || listener !== this.#listener) return records;
    created.forEach((record, i) => {
      this.#handed.keep(record, texts[i]);
      listener.deliver(record.job_id, record.owner);
    });
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

  /** Jobs handed over at acceptance are read from memory the first time, not from the store. */
  payloads(jobIds: string[]): Promise<(string | null)[]> {
    const texts = jobIds.map((jobId) => this.#handed.takeText(jobId));
    return filled(jobIds, texts, (unread) => this.#store.texts(unread));
  }

  async lease(jobId: string, worker: string): Promise<JobRecord | null> {
    return (await this.leaseMany([jobId], worker))[0];
  }

  /**
   * Takes each job it may (see `leaseDecision`); one out of attempts is failed instead. The
   * decision is made again on the stored record as it is written, so a lease renewed meanwhile
   * is not taken over. A job `worker` holds already (leased to it as it was accepted) is taken
   * as it is while at least half its lease is left, and renewed otherwise; once its lease ran
   * out, taking it again uses an attempt.
   */
  async leaseMany(jobIds: string[], worker: string): Promise<(JobRecord | null)[]> {
    const records = await this.#seen([...new Set(jobIds)]);
    const now = this.#now();
    const leased = new Map<string, JobRecord>();
    const writes: JobWrite[] = [];
    const exhausted: JobRecord[] = [];
    const takes = (record: JobRecord | null) => leaseDecision(record, now, this.maxAttempts);
    for (const record of records) {
      const left = record?.status === "running" && record.worker === worker
        ? record.lease_until! - now
        : 0;
      const decision = left > 0 ? "keep" : takes(record);
      if (left >= this.leaseMs / 2) leased.set(record!.job_id, record!);
      else if (decision === "keep") {
        writes.push({ seen: record!, change: (s) => renewedRecord(s, this.leaseMs, now) });
      } else if (decision === "exhausted") exhausted.push(record!);
      else if (decision === "take") {
        writes.push({
          seen: record!,
          change: (stored) =>
            takes(stored) === "take" ? leasedRecord(stored, worker, this.leaseMs, now) : null,
        });
      }
    }
    for (const record of exhausted) await this.#exhaust(record);
    for (const record of await this.#store.write(writes)) {
      if (record) leased.set(record.job_id, record);
    }
    const given = new Set<string>();
    return jobIds.map((id) => {
      if (given.has(id)) return null;
      given.add(id);
      // The text of a handed job leased elsewhere, or ended, is not asked for here.
      if (!leased.has(id)) this.#handed.takeText(id);
      return leased.get(id) ?? null;
    });
  }

  /**
   * The records of `jobIds` as last seen: those handed over at acceptance as accepted (the
   * store's check on writing tells whether they still are), the others read.
   */
  #seen(jobIds: string[]): Promise<(JobRecord | null)[]> {
    const handed = jobIds.map((jobId) => this.#handed.takeRecord(jobId));
    return filled(jobIds, handed, (unread) => this.#store.read(unread));
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
   * then). Jobs this queue accepts while it listens reach `handler` at once (see `accept`).
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
    const deliver = async ({ job_id, failures }: StoredMessage, owner?: string) => {
      if (signal?.aborted) return;
      try {
        await handler({ job_id, owner });
      } catch {
        const delay = BACKOFF_SCHEDULE[failures];
        if (delay !== undefined) await this.#store.enqueue([job_id], delay, failures + 1);
      }
    };
    const listener = {
      worker: options.worker,
      deliver: (jobId: string, owner: string) => {
        // A job whose delivery could not even be retried is the reconciler's (its next pass).
        queueMicrotask(() => deliver({ job_id: jobId, failures: 0 }, owner).catch(() => {}));
      },
    };
    this.#listener = listener;
    signal?.addEventListener("abort", () => {
      if (this.#listener === listener) this.#listener = undefined;
      this.#handed.clear();
    }, { once: true });
    return this.#store.listen(deliver, signal);
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

/** `known`, its gaps (`undefined`) filled, in order, by what `read` gives for their ids. */
async function filled<T>(
  ids: string[],
  known: (T | undefined)[],
  read: (ids: string[]) => Promise<T[]>,
): Promise<T[]> {
  const unread = ids.filter((_, i) => known[i] === undefined);
  const got = unread.length > 0 ? await read(unread) : [];
  let next = 0;
  return known.map((value) => value === undefined ? got[next++] : value);
}
