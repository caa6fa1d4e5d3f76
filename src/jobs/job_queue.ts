/**
 * The job queue: remember jobs as records clients can poll, the texts waiting for them, and
 * the queue that delivers them to the worker. Its state machine is written once, as
 * `StoredJobQueue` over a narrow `JobStore` (`job_store.ts`): `@svc/denokv`'s `KvJobQueue` runs
 * it over Deno KV (what one relayer runs on), `MemoryJobQueue` in memory, and the PostgreSQL
 * plugin's `PgJobQueue` over its tables; all pass one conformance suite
 * (`src/testing/job_queue_suite.ts`).
 *
 * A job's life: `accept` makes it `pending` and enqueues it; a delivery (or the reconciler)
 * makes a worker `lease` it (`running`, one more attempt); the worker `checkpoint`s each
 * stage's output, then `complete`s it (`done`), `retry`s it (`pending` again, enqueued after a
 * delay) or `fail`s it (`failed`, with a human sentence). A lease past `leaseMs` may be taken
 * over; a job leased `maxAttempts` times fails at the next lease. An attempt a crash cut short is
 * given back as `interrupted`, without counting.
 *
 * Leases are fenced: a worker `renew`s its lease while the job runs, and every change a caller
 * makes from a record applies only while the job is still as that record shows it (same
 * status, worker and attempt); otherwise it throws `LeaseLost` and changes nothing. A worker
 * whose lease was taken over therefore cannot save, finish or retry the job a second time.
 * The batch twins (`leaseMany`, `completeMany`, …) answer per job instead of throwing.
 */
import type { PendingClaim } from "../auth/replay_guard.ts";
import { SvcError } from "../errors.ts";

/** Where a remember job is in its life: waiting, leased by a worker, or finished. */
export type JobStatus = "pending" | "running" | "done" | "failed";

/** A remember job as clients see it. */
export interface PublicJob {
  /** The job's id; once the job is done, also the id of the memory it stored. */
  job_id: string;
  /** Where the job is in its life. */
  status: JobStatus;
  /** The address of the owner the text is remembered for. */
  owner: string;
  /** The namespace the memory goes to. */
  namespace: string;
  /** The blob holding the memory's ciphertext, once it is stored. */
  blob_id?: string;
  /** The memory's id, once the job is done. */
  memory_id?: string;
  /** Set when the text was already a memory of the namespace: that memory's id (and `memory_id`). */
  duplicate_of?: string;
  /** Why the job failed, or why its last attempt did, in a human sentence. */
  error?: string;
  /** Leases so far: how many times a worker took the job, less those a crash cut short. */
  attempts: number;
  /** When the job was accepted (ISO 8601). */
  created_at: string;
  /** When the record last changed (ISO 8601). */
  updated_at: string;
}

/** A job record as stored: the public job and its lease, which is internal. */
export interface JobRecord extends PublicJob {
  /** Unix milliseconds until which `worker` holds the job. */
  lease_until?: number;
  /** The worker holding the job. */
  worker?: string;
  /** Attempts a crash cut short (not counted in `attempts`); see `JobQueue.interrupted`. */
  interruptions?: number;
}

/**
 * Thrown by a change made from a record the job no longer matches: another worker took the job
 * over, or it was retried or finished meanwhile. The caller stops working on the job.
 */
export class LeaseLost extends SvcError {
  /** The error of a change to job `jobId` that the queue refused. */
  constructor(jobId: string) {
    super("conflict", `Cannot update job ${jobId}: another worker took it over, or it ended`);
    this.name = "LeaseLost";
  }
}

/** A record without its internal fields. */
export function publicJob(record: JobRecord): PublicJob {
  const { lease_until: _lease, worker: _worker, interruptions: _interruptions, ...job } = record;
  return job;
}

/** A text to remember for an owner, in a namespace. */
export interface JobInput {
  /** The owner's address. */
  owner: string;
  /** The namespace the memory goes into. */
  namespace: string;
  /** The job's payload, sealed while it waits: the memory's text, with its attributes if any
   * (`encodePayload` in `src/pipeline/attributes.ts`). */
  text: string;
}

/** What the queue delivers: the id of a job to work on. */
export interface JobMessage {
  /** The job's id (also the memory's). */
  job_id: string;
  /** The job's owner, where the queue knows it without reading the record (the worker's turns). */
  owner?: string;
}

/** A job a worker holds and the ciphertext to keep with it (see `JobQueue.saveCiphertext`). */
export interface CiphertextToSave {
  /** The record the worker leased (or last saved). */
  record: JobRecord;
  /** The memory's ciphertext. */
  ciphertext: Uint8Array<ArrayBuffer>;
}

/** A job a worker holds, to finish with `patch` applied (see `JobQueue.complete`). */
export interface JobCompletion {
  /** The record the worker leased (or last saved). */
  record: JobRecord;
  /** The outputs to record on the finished job (its blob and memory ids). */
  patch: Partial<JobRecord>;
}

/** Called for each delivery; a rejection asks the queue to deliver the message again later. */
export type JobHandler = (message: JobMessage) => Promise<void>;

/** Options of `JobQueue.listen`. */
export interface ListenOptions {
  /** Stops listening: once it aborts, no more messages reach the handler. */
  signal?: AbortSignal;
  /**
   * The worker the handler hands jobs to. A queue that hands the jobs this process accepts
   * straight to its listener may lease them to it (`id`) in the commit that accepts them, when
   * `ready(jobs)` says it would start that many at once; its lease of such a job then writes
   * nothing.
   */
  worker?: { id: string; ready(jobs: number): boolean };
}

/** The lease and attempt limits of a job queue. */
export interface JobQueueOptions {
  /** How long a worker holds a job before others may take it over (default 120 s). */
  leaseMs?: number;
  /** Attempts before a job is marked failed (default 5). */
  maxAttempts?: number;
  /**
   * The clock leases and record times are read from, in Unix milliseconds (default
   * `Date.now`). A test passes a manual one, so that a lease runs out only when it says.
   */
  now?: () => number;
}

/** What {@link JobQueue.accept} takes besides the jobs. */
export interface AcceptOptions {
  /** The replay claim of the request accepting, when its write was left to the route. */
  claim?: PendingClaim;
}

/**
 * Remember jobs: their records, their texts until they finish, and their delivery.
 * Deliveries are at least once, so a handler must tolerate the same job twice (`lease` lets
 * only one worker hold it at a time).
 *
 * @example
 * ```ts
 * const [job] = await queue.accept([{ owner, namespace: "default", text: "I keep bees" }]);
 * const listening = new AbortController();
 * queue.listen(({ job_id }) => worker.process(job_id), { signal: listening.signal });
 * // ... later
 * listening.abort();
 * ```
 */
export interface JobQueue {
  /** How long a lease holds a job. */
  readonly leaseMs: number;
  /** Leases a job may have; the next lease fails it instead. */
  readonly maxAttempts: number;
  /**
   * Whether other relayers work on the same jobs (a queue in a shared database): then the
   * reconciler's start-up pass gives back only the running jobs whose lease ran out, not those
   * another relayer holds. Unset for a queue one relayer owns.
   */
  readonly shared?: boolean;

  /**
   * Creates a `pending` record for each input, keeps its text, and enqueues it (a queue that is
   * listened to may hand it to its listener instead, leased to its worker: see `ListenOptions`);
   * resolves once all of that is durable (all or none of the jobs exist), with the records in
   * input order.
   * `claim`, the replay claim of the request accepting, is durable no later than the jobs: in
   * the same commit where the queue keeps its jobs in the claim's store, else settled first.
   */
  accept(inputs: JobInput[], options?: AcceptOptions): Promise<JobRecord[]>;

  /** A job's record, or `null` when unknown (or expired). */
  get(jobId: string): Promise<JobRecord | null>;

  /** The records of `jobIds`, in order, `null` for each unknown one. */
  getMany(jobIds: string[]): Promise<(JobRecord | null)[]>;

  /** The text of a job, or `null` once the job has finished and its text is gone. */
  payload(jobId: string): Promise<string | null>;

  /** `payload` for each of `jobIds`, in order. */
  payloads(jobIds: string[]): Promise<(string | null)[]>;

  /**
   * Takes the job for `worker`: returns the `running` record (one more attempt, leased for
   * `leaseMs`), or `null` when the job is finished, unknown, or leased by a live worker. A job
   * already leased `maxAttempts` times is failed instead (keeping its last error).
   */
  lease(jobId: string, worker: string): Promise<JobRecord | null>;

  /**
   * `lease` for each of `jobIds`: per id, in order, the `running` record leased to `worker`, or
   * `null` when it could not be taken (an id given twice is leased once).
   */
  leaseMany(jobIds: string[], worker: string): Promise<(JobRecord | null)[]>;

  /**
   * Extends the lease of a job `record`'s worker still holds to `leaseMs` from now (the record's
   * `updated_at` stays); returns the renewed record, or `null` when the lease was lost.
   */
  renew(record: JobRecord): Promise<JobRecord | null>;

  /** Saves a stage's output on a record this worker holds; returns the saved record. */
  checkpoint(record: JobRecord, patch: Partial<JobRecord>): Promise<JobRecord>;

  /**
   * Keeps the memory's ciphertext with a job this worker holds, so that a worker taking the job
   * over puts the same bytes (the blob store then gives the same blob, not a second one).
   */
  saveCiphertext(record: JobRecord, ciphertext: Uint8Array<ArrayBuffer>): Promise<void>;

  /**
   * `saveCiphertext` for each item: per item, in order, `true` once its ciphertext is kept, or
   * `false` when the worker no longer holds that job (nothing is kept for it).
   */
  saveCiphertexts(items: CiphertextToSave[]): Promise<boolean[]>;

  /** The ciphertext saved for a job, or `null` when none was (or the job has finished). */
  ciphertext(jobId: string): Promise<Uint8Array<ArrayBuffer> | null>;

  /** `ciphertext` for each of `jobIds`, in order. */
  ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]>;

  /** Marks the job `done` with `patch` applied, and drops its text and ciphertext. */
  complete(record: JobRecord, patch: Partial<JobRecord>): Promise<void>;

  /**
   * `complete` for each item: per item, in order, `true` once the job is `done`, or `false` when
   * the worker no longer holds it (it is left as it is).
   */
  completeMany(items: JobCompletion[]): Promise<boolean[]>;

  /** Marks the job `failed` with a human sentence, and drops its text and ciphertext. */
  fail(record: JobRecord, error: string): Promise<void>;

  /**
   * Gives a job back (`pending`, lease released) and enqueues it again after `delayMs`. With
   * `counted: false` the attempt is not counted (a backend was unavailable: the job is not at
   * fault, and its attempts stay for faults of its own).
   */
  retry(
    record: JobRecord,
    error: string | undefined,
    delayMs: number,
    options?: { counted?: boolean },
  ): Promise<void>;

  /**
   * Gives back a job whose attempt a crash cut short (the reconciler, at start-up, for the jobs
   * the last run left `running`): `pending` again and enqueued at once, its last error kept, the
   * attempt not counted but the interruption recorded. A job interrupted twice as often as it may
   * be attempted fails at its next lease, so that one crashing the relayer does not loop.
   */
  interrupted(record: JobRecord): Promise<void>;

  /** Enqueues a job again as it is (the reconciler's re-drive). */
  redrive(jobId: string): Promise<void>;

  /** The records of jobs not yet done or failed, oldest first. */
  active(): AsyncIterable<JobRecord>;

  /**
   * Delivers enqueued jobs to `handler`, at least once each, until `signal` aborts; resolves
   * when listening stops. Messages enqueued before listening starts wait for it. Listen at
   * most once per queue.
   */
  listen(handler: JobHandler, options?: ListenOptions): Promise<void>;
}
