/** What the job worker tells of its work: how jobs end, how long batches take. */

/** What a worker reports as it goes. */
export interface WorkerObserver {
  /** A job ended: stored, found a duplicate, or failed; `acceptedAt` in Unix milliseconds. */
  jobEnded(outcome: "done" | "duplicate" | "failed", acceptedAt: number): void;
  /**
   * A job failed for good for a reason other than its input's or client's (its attempts ran out):
   * dead-lettered. Told after `jobEnded("failed")`.
   */
  jobDeadLettered?(): void;
  /** A job's attempt failed; it will be tried again. */
  jobRetried(): void;
  /** A group of jobs went through the stages in `seconds`. */
  batchRan(seconds: number): void;
}

/** The jobs a worker holds. */
export interface WorkerStats {
  /** Delivered, waiting for a batch. */
  waiting: number;
  /** In a running batch. */
  running: number;
}
