/**
 * How a job record changes, as pure functions of the record: every `JobQueue` implementation
 * stores what these return, so the implementations differ only in where records live.
 */
import { timeOrderedId } from "../ids.ts";
import type { JobInput, JobRecord } from "./job_queue.ts";

/** Delays before a message whose handler failed is delivered again. */
export const BACKOFF_SCHEDULE: readonly number[] = Object.freeze([
  1_000,
  5_000,
  15_000,
  60_000,
  120_000,
]);

/** The error of a job failed for running out of attempts without an error of its own. */
const TOO_MANY_ATTEMPTS = "The job was interrupted too many times";

/** A new `pending` record for `input`, with a fresh time-ordered job id. */
export function acceptedRecord(input: JobInput, now: string): JobRecord {
  return {
    job_id: timeOrderedId(),
    status: "pending",
    owner: input.owner,
    namespace: input.namespace,
    attempts: 0,
    created_at: now,
    updated_at: now,
  };
}

/** Interruptions (attempts a crash cut short) a job may have, per attempt it may have. */
const INTERRUPTIONS_PER_ATTEMPT = 2;

/** Whether the job has been interrupted as often as it may be. */
function tooOftenInterrupted(record: JobRecord, maxAttempts: number): boolean {
  return (record.interruptions ?? 0) >= maxAttempts * INTERRUPTIONS_PER_ATTEMPT;
}

/**
 * Whether `lease` may take the job: `"skip"` when it is unknown, finished or held by a live
 * lease; `"exhausted"` when it has had all its attempts, or twice as many interruptions (it is
 * then failed, with `exhaustedError`); else `"take"`.
 */
export function leaseDecision(
  record: JobRecord | null,
  now: number,
  maxAttempts: number,
): "take" | "skip" | "exhausted" {
  if (!record || record.status === "done" || record.status === "failed") return "skip";
  if (record.status === "running" && (record.lease_until ?? 0) > now) return "skip";
  const exhausted = record.attempts >= maxAttempts || tooOftenInterrupted(record, maxAttempts);
  return exhausted ? "exhausted" : "take";
}

/** The error of a job failed at its lease: its last attempt's, unless interruptions ended it. */
export function exhaustedError(record: JobRecord, maxAttempts: number): string {
  if (tooOftenInterrupted(record, maxAttempts)) return TOO_MANY_ATTEMPTS;
  return record.error ?? TOO_MANY_ATTEMPTS;
}

/** The record leased to `worker` until `now + leaseMs`, one attempt more. */
export function leasedRecord(
  record: JobRecord,
  worker: string,
  leaseMs: number,
  now: number,
): JobRecord {
  return {
    ...record,
    status: "running",
    attempts: record.attempts + 1,
    lease_until: now + leaseMs,
    worker,
    updated_at: new Date(now).toISOString(),
  };
}

/**
 * Whether the stored record is still as `seen` shows it (same status, worker and attempt), so a
 * change made from `seen` may apply; a renewed lease or a checkpoint keeps it so.
 */
export function stillAsSeen(stored: JobRecord | null, seen: JobRecord): stored is JobRecord {
  return stored !== null && stored.status === seen.status && stored.worker === seen.worker &&
    stored.attempts === seen.attempts;
}

/** The record with its lease extended to `now + leaseMs`. */
export function renewedRecord(record: JobRecord, leaseMs: number, now: number): JobRecord {
  return { ...record, lease_until: now + leaseMs };
}

/** The record with a stage's output applied at `now`. */
export function checkpointedRecord(
  record: JobRecord,
  patch: Partial<JobRecord>,
  now: number,
): JobRecord {
  return { ...record, ...patch, updated_at: new Date(now).toISOString() };
}

/** The record `done` (with `patch` applied) at `now`, its lease released. */
export function completedRecord(
  record: JobRecord,
  patch: Partial<JobRecord>,
  now: number,
): JobRecord {
  return released({ ...record, ...patch, status: "done", error: undefined }, now);
}

/** The record `failed` with `error` at `now`, its lease released. */
export function failedRecord(record: JobRecord, error: string, now: number): JobRecord {
  return released({ ...record, status: "failed", error }, now);
}

/**
 * The record `pending` again at `now` after a crash cut its attempt short: that attempt is not
 * counted, but the interruption is; its last error kept, its lease released.
 */
export function interruptedRecord(record: JobRecord, now: number): JobRecord {
  return released({
    ...record,
    status: "pending",
    attempts: Math.max(0, record.attempts - 1),
    interruptions: (record.interruptions ?? 0) + 1,
  }, now);
}

/**
 * The record `pending` again at `now` with the attempt's error, its lease released; the attempt
 * not counted unless `counted`.
 */
export function retriedRecord(
  record: JobRecord,
  error: string | undefined,
  now: number,
  counted = true,
): JobRecord {
  const attempts = counted ? record.attempts : Math.max(0, record.attempts - 1);
  return released({ ...record, status: "pending", error, attempts }, now);
}

function released(record: JobRecord, now: number): JobRecord {
  return {
    ...record,
    lease_until: undefined,
    worker: undefined,
    updated_at: new Date(now).toISOString(),
  };
}
