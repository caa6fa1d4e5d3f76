/**
 * What becomes of a job whose attempt failed: failed for good when trying again would not help
 * (a client or input error) or its attempts ran out, else tried again after a delay. An attempt
 * a backend's outage failed (down or refusing) while storing the memory is not counted, for a day
 * after the job was accepted: an outage that long loses no memory accepted before it. A call past
 * its time limit, or an answer a backend gave that cannot be used, counts: the job's own text may
 * be the cause. So does every failure to land a memory once it is indexed (the erase of the
 * version an update replaces): the backends that store it answered, and a landing that fails
 * each time (a key store that refuses every erase) must not keep its job for a day.
 * Every job thus ends: within `maxAttempts` counted attempts, and a day of uncounted ones.
 *
 * @example
 * ```ts
 * import { SvcError } from "../errors.ts";
 * afterFailure(new SvcError("backend_unavailable", "Walrus is down"), 5, 5, 60_000);
 * // { fail: false, delayMs: 15_000, counted: false }
 * ```
 */
import { SvcError } from "../errors.ts";
import type { JobRecord } from "./job_queue.ts";

/** How long after its acceptance a job keeps trying a backend that is unavailable, uncounted. */
export const OUTAGE_BUDGET_MS = 24 * 3_600_000;

/** Failed for good, or tried again after `delayMs`, the attempt counted or not. */
export type AfterFailure = { fail: true } | { fail: false; delayMs: number; counted: boolean };

/** Where an attempt failed: storing and indexing the memory, or landing it once indexed. */
export type FailedStage = "store" | "land";

/**
 * What becomes of a job whose attempt failed with `error` in `stage`, after `attempts` counted of
 * `maxAttempts`, `ageMs` after it was accepted.
 */
export function afterFailure(
  error: unknown,
  attempts: number,
  maxAttempts: number,
  ageMs: number,
  stage: FailedStage = "store",
): AfterFailure {
  if (stage === "store" && unavailable(error) && ageMs < OUTAGE_BUDGET_MS) {
    // A quarter of the job's age, 1 s to 1 min.
    return { fail: false, delayMs: Math.min(60_000, Math.max(1_000, ageMs / 4)), counted: false };
  }
  if (permanent(error) || attempts >= maxAttempts) return { fail: true };
  return { fail: false, delayMs: Math.min(60_000, 1_000 * 2 ** (attempts - 1)), counted: true };
}

/** The sentence a failed job carries: the error's own for `SvcError`, else a generic one. */
export function jobError(error: unknown): string {
  if (error instanceof SvcError) return error.message;
  if (error instanceof Error && /timed out/.test(error.message)) return error.message;
  return "The memory could not be stored because of an internal error";
}

/**
 * Whether a job with `leases` leases counted now had an attempt counted before, or one a crash
 * cut short: it may be what failed or crashed that attempt.
 */
export function suspect(record: JobRecord, leases: number): boolean {
  return record.attempts > leases || !!record.interruptions;
}

/** A client or input error: trying again would not help. */
export function permanent(error: unknown): boolean {
  return error instanceof SvcError && error.status < 500;
}

/** A backend down or refusing for a while; an unusable answer carries a `reason`. */
function unavailable(error: unknown): boolean {
  return error instanceof SvcError && error.code === "backend_unavailable" &&
    error.details.reason === undefined;
}
