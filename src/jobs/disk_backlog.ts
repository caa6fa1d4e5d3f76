/**
 * The disk floor against the backlog: the remember jobs accepted and not yet written cost disk
 * space later, so each is charged its estimated size on disk (its text's bytes times
 * {@link DISK_BYTES_PER_TEXT_BYTE}, plus {@link DISK_BYTES_PER_JOB}) against the room left above
 * the floor. Work that would not fit is refused (503 `disk_full`, `Retry-After`), so the less room
 * is left, the less is accepted, and the backlog, written, stays above the floor. A job's charge
 * is given back once it is done or failed; until the next reading of the free space (which then
 * counts what it wrote) it still counts.
 *
 * @example
 * ```ts
 * const queue = withDiskBacklog(storedQueue, new DiskBacklog(diskSpace));
 * await queue.accept([{ owner, namespace: "default", text: "I keep bees" }]); // or 503 disk_full
 * ```
 */
import { SvcError } from "../errors.ts";
import type { JobInput, JobQueue, JobRecord } from "./job_queue.ts";

/** Disk bytes a job takes per byte of its text: the sealed payload, the blob, terms, pages. */
const DISK_BYTES_PER_TEXT_BYTE = 4;
/** Disk bytes a job takes besides its text: its record, its vector and the index's rows. */
const DISK_BYTES_PER_JOB = 16 * 1024;
/** What a client refused for lack of disk space is told to wait, in seconds. */
const DISK_RETRY_SECONDS = 30;

/** The free space of the data directory's disk, as the relayer watches it. */
export interface DiskRoom {
  /** Whether the free space is under the floor. */
  readonly low: boolean;
  /** Free bytes above the floor, as last read (negative under it). */
  readonly room: number;
  /** Readings of the free space started so far. */
  readonly readsStarted: number;
  /** The number (1, 2, …) of the reading `room` comes from. */
  readonly reading: number;
}

/** The 503 of a write refused for lack of disk space. */
export function diskFull(): SvcError {
  return new SvcError(
    "backend_unavailable",
    "Cannot store anything now: the relayer's disk is full. Reads and erases still work; " +
      `try again in ${DISK_RETRY_SECONDS} s`,
    {
      details: { reason: "disk_full", retry_after_seconds: DISK_RETRY_SECONDS },
      headers: { "retry-after": String(DISK_RETRY_SECONDS) },
    },
  );
}

/** The estimated disk bytes of the jobs accepted and not yet written (see the module comment). */
export class DiskBacklog {
  readonly #disk: DiskRoom;
  /** Charges of the jobs not yet finished, by job id. */
  readonly #pending = new Map<string, number>();
  /** Charges of jobs finished since the reading `after` started, not yet read. */
  #landed: { bytes: number; after: number }[] = [];
  #held = 0;

  constructor(disk: DiskRoom) {
    this.#disk = disk;
  }

  /** The estimated disk bytes of a job of `text`. */
  static estimate(text: string): number {
    return new TextEncoder().encode(text).length * DISK_BYTES_PER_TEXT_BYTE + DISK_BYTES_PER_JOB;
  }

  /** Bytes charged now: pending jobs and those landed since the last reading. */
  get held(): number {
    const reading = this.#disk.reading;
    this.#landed = this.#landed.filter((landed) => landed.after >= reading);
    return this.#held + this.#landed.reduce((sum, landed) => sum + landed.bytes, 0);
  }

  /** Charges `bytes` for work about to be accepted; throws 503 `disk_full` when it won't fit. */
  charge(bytes: number): void {
    if (this.#disk.low || this.held + bytes > this.#disk.room) throw diskFull();
    this.#held += bytes;
  }

  /** Gives back a charge whose work was not accepted after all. */
  refund(bytes: number): void {
    this.#held -= bytes;
  }

  /** Records `bytes` of a charge as the pending job `jobId`'s. */
  pending(jobId: string, bytes: number): void {
    this.#pending.set(jobId, (this.#pending.get(jobId) ?? 0) + bytes);
  }

  /** Job `jobId` is done or failed: its charge counts until the next reading, then goes. */
  landed(jobId: string): void {
    const bytes = this.#pending.get(jobId);
    if (bytes === undefined) return;
    this.#pending.delete(jobId);
    this.#held -= bytes;
    this.#landed.push({ bytes, after: this.#disk.readsStarted });
  }
}

/**
 * `queue`, its accepted jobs charged to `backlog` (refused with 503 `disk_full` past the room
 * left above the floor) and given back as they finish.
 */
export function withDiskBacklog(queue: JobQueue, backlog: DiskBacklog): JobQueue {
  const finished = (record: JobRecord | null) =>
    record === null || record.status === "done" || record.status === "failed";
  /** Gives back the charges of the jobs among `jobIds` that a lease found finished. */
  const settle = async (jobIds: string[]) => {
    if (jobIds.length === 0) return;
    const records = await queue.getMany(jobIds);
    jobIds.forEach((jobId, i) => finished(records[i]) && backlog.landed(jobId));
  };
  const charged: Partial<JobQueue> = {
    async accept(inputs: JobInput[], options?: Parameters<JobQueue["accept"]>[1]) {
      const sizes = inputs.map((input) => DiskBacklog.estimate(input.text));
      const total = sizes.reduce((sum, bytes) => sum + bytes, 0);
      backlog.charge(total);
      let records: JobRecord[];
      try {
        records = await queue.accept(inputs, options);
      } catch (error) {
        backlog.refund(total);
        throw error;
      }
      records.forEach((record, i) => backlog.pending(record.job_id, sizes[i]));
      return records;
    },
    async lease(jobId: string, worker: string) {
      const record = await queue.lease(jobId, worker);
      if (record === null) await settle([jobId]);
      return record;
    },
    async leaseMany(jobIds: string[], worker: string) {
      const records = await queue.leaseMany(jobIds, worker);
      await settle(jobIds.filter((_, i) => records[i] === null));
      return records;
    },
    async complete(record: JobRecord, patch: Partial<JobRecord>) {
      await queue.complete(record, patch);
      backlog.landed(record.job_id);
    },
    async completeMany(items: Parameters<JobQueue["completeMany"]>[0]) {
      const done = await queue.completeMany(items);
      items.forEach(({ record }, i) => done[i] && backlog.landed(record.job_id));
      return done;
    },
    async fail(record: JobRecord, error: string) {
      await queue.fail(record, error);
      backlog.landed(record.job_id);
    },
  };
  // The queue's other members, bound to it (a class's private fields need it as `this`).
  return new Proxy(queue, {
    get(target, key) {
      if (Object.hasOwn(charged, key)) return charged[key as keyof JobQueue];
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
