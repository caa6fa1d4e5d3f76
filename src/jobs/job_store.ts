/**
 * `JobStore`: where remember jobs live, and nothing else (the state machine is `StoredJobQueue`'s):
 * records, texts and ciphertexts, changes applied only while a job is as seen, and messages.
 */
import type { PendingClaim } from "../auth/replay_guard.ts";
import type { JobRecord } from "./job_queue.ts";

/** A change to one job, applied only while the stored record is still as `seen` shows it. */
export interface JobWrite {
  /**
   * The record the change was made from: it applies while the stored record has the same status,
   * worker and attempt (its lease may have been renewed since, so `lease_until` tells nothing).
   */
  seen: JobRecord;
  /** The record to store, from the stored one; `null` leaves the job as it is. */
  change: (stored: JobRecord) => JobRecord | null;
  /** A ciphertext to keep with the job (see `JobQueue.saveCiphertext`). */
  ciphertext?: Uint8Array<ArrayBuffer>;
  /** The job ended: its text and ciphertext go, and it leaves the active jobs. */
  finished?: boolean;
  /** Why the job failed, kept as its dead letter (a store may keep none). */
  deadLetter?: string;
  /** Delivers the job again after this many milliseconds. */
  enqueueAfterMs?: number;
}

/** A delivery: the job, and how many deliveries of this message failed before it. */
export interface StoredMessage {
  /** The job to work on. */
  job_id: string;
  /** Deliveries of this message whose handler failed. */
  failures: number;
}

/** What `JobStore.create` takes besides the jobs. */
export interface CreateOptions {
  /** The replay claim of the request accepting, durable no later than the jobs. */
  claim?: PendingClaim;
  /**
   * Whether the store delivers the jobs (default `true`). `false`: the queue hands them to its
   * listener in this process itself; a store shared with other processes delivers them once a
   * lease has passed, should that listener not finish them, and one that is not leaves them to
   * the reconciler.
   */
  deliver?: boolean;
}

/** Where remember jobs live; see the module documentation. */
export interface JobStore {
  /** Whether other relayers share the jobs (see `JobQueue.shared`). */
  readonly shared?: boolean;
  /**
   * Keeps new records with their texts, all or none, and unless `options.deliver` is `false`
   * delivers them (a store may enqueue after the records are kept: a job whose message is lost
   * stays pending, for the reconciler); `options.claim` is durable no later than the jobs.
   */
  create(records: JobRecord[], texts: string[], options?: CreateOptions): Promise<void>;
  /** The records of `jobIds`, in order, `null` for each unknown one. */
  read(jobIds: string[]): Promise<(JobRecord | null)[]>;
  /**
   * Applies each change whose job is still as seen: per change, the record written or `null`.
   * Each job appears at most once in `changes`.
   */
  write(changes: JobWrite[]): Promise<(JobRecord | null)[]>;
  /** The texts of `jobIds`, in order, `null` once a job ended. */
  texts(jobIds: string[]): Promise<(string | null)[]>;
  /** The ciphertexts kept for `jobIds`, in order, `null` where none is. */
  ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]>;
  /**
   * Delivers the jobs again after `delayMs` (default at once); `failures` is how many deliveries
   * of the message this one repeats failed (default 0).
   */
  enqueue(jobIds: string[], delayMs?: number, failures?: number): Promise<void>;
  /** The records of jobs not yet done or failed, oldest first. */
  active(): AsyncIterable<JobRecord>;
  /**
   * Delivers enqueued jobs to `handler` until `signal` aborts, at least once each; resolves when
   * listening stops.
   */
  listen(handler: (message: StoredMessage) => Promise<void>, signal?: AbortSignal): Promise<void>;
}
