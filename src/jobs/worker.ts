/**
 * The job worker: runs each remember job through the remember pipeline (encrypt, store, then
 * index) in a bounded pool, with a time limit on every backend call. Every stage is idempotent
 * per memory id: the ciphertext is kept with the job before the blob is put (so putting it
 * again gives the same blob), the blob id is checkpointed before the index write, and the
 * memory id is the job id, so re-delivery resumes and the index write is an upsert.
 *
 * A job may run longer than its lease: while it runs, the worker renews the lease every third
 * of `leaseMs`, so no other worker takes it over. If a renewal finds the lease lost (this
 * worker stalled past it and another took the job), the worker aborts its backend calls and
 * stops without saving, finishing or retrying anything: the queue refuses those changes from a
 * worker that no longer holds the job (`LeaseLost`).
 */
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { RememberPipeline } from "../pipeline/remember.ts";
import { type JobQueue, type JobRecord, LeaseLost } from "./job_queue.ts";
import { Semaphore } from "./semaphore.ts";

export interface WorkerDependencies {
  queue: JobQueue;
  pipeline: RememberPipeline;
  logger: Logger;
  /** Jobs processed at once (default 4). */
  concurrency?: number;
  /** Limit for each backend call (default 30 s). */
  callTimeoutMs?: number;
}

export interface Worker {
  readonly id: string;
  /** Processes one job now (also what queue deliveries call). */
  process(jobId: string): Promise<void>;
  /** Resolves once no job is being processed. */
  idle(): Promise<void>;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener("abort", wake);
  });
}

function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 1_000 * 2 ** (attempts - 1));
}

/** The sentence a failed job carries: the error's own for `SvcError`, else a generic one. */
function jobError(error: unknown): string {
  if (error instanceof SvcError) return error.message;
  if (error instanceof Error && /timed out/.test(error.message)) return error.message;
  return "The memory could not be stored because of an internal error";
}

export function createWorker(deps: WorkerDependencies): Worker {
  const id = crypto.randomUUID();
  const pool = new Semaphore(deps.concurrency ?? 4);
  const timeoutMs = deps.callTimeoutMs ?? 30_000;
  const running = new Set<Promise<void>>();
  const { queue, pipeline, logger } = deps;

  async function runStages(record: JobRecord, signal: AbortSignal): Promise<void> {
    const text = await queue.payload(record.job_id);
    if (text === null) throw new SvcError("internal", "The job's text is no longer available");
    const key = {
      memoryId: record.job_id,
      owner: record.owner,
      namespace: record.namespace,
      createdAt: Date.parse(record.created_at),
    };
    const options = { timeoutMs, signal };
    if (!record.blob_id) {
      let ciphertext = await queue.ciphertext(record.job_id);
      if (!ciphertext) {
        ciphertext = await pipeline.encrypt({ ...key, text }, options);
        await queue.saveCiphertext(record, ciphertext);
      }
      const blobId = await pipeline.store({ ...key, ciphertext }, options);
      record = await queue.checkpoint(record, { blob_id: blobId });
    }
    signal.throwIfAborted();
    await pipeline.index({ ...key, text, blobId: record.blob_id! }, options);
    await queue.complete(record, { memory_id: record.job_id });
  }

  /**
   * Renews `record`'s lease every third of `leaseMs` until `stop` aborts; aborts `lost` when a
   * renewal finds the lease gone. A renewal that fails (the job store is down) is tried again
   * at the next beat.
   */
  async function heartbeat(record: JobRecord, stop: AbortSignal, lost: AbortController) {
    const beatMs = Math.max(1, Math.floor(queue.leaseMs / 3));
    while (!stop.aborted) {
      await sleep(beatMs, stop);
      if (stop.aborted) return;
      try {
        if (!(await queue.renew(record))) {
          lost.abort(new LeaseLost(record.job_id));
          return;
        }
      } catch (error) {
        logger.warn("cannot renew a job's lease", { job_id: record.job_id, error });
      }
    }
  }

  async function processNow(jobId: string): Promise<void> {
    const record = await queue.lease(jobId, id);
    if (!record) return;
    const lost = new AbortController();
    const done = new AbortController();
    const beating = heartbeat(record, done.signal, lost);
    try {
      await runStages(record, lost.signal);
      logger.debug("job done", { job_id: jobId, attempts: record.attempts });
    } catch (error) {
      if (error instanceof LeaseLost || lost.signal.aborted) {
        logger.warn("job taken over by another worker; this attempt stops", {
          job_id: jobId,
          attempts: record.attempts,
        });
        return;
      }
      await giveUpAttempt(record, error);
    } finally {
      done.abort();
      await beating;
    }
  }

  /** Retries the job later, or fails it when the error is permanent or attempts ran out. */
  async function giveUpAttempt(record: JobRecord, error: unknown): Promise<void> {
    const message = jobError(error);
    const permanent = error instanceof SvcError && error.status < 500;
    logger.warn("job attempt failed", {
      job_id: record.job_id,
      attempts: record.attempts,
      error: error instanceof Error ? error : String(error),
    });
    try {
      if (permanent || record.attempts >= queue.maxAttempts) await queue.fail(record, message);
      else await queue.retry(record, message, retryDelayMs(record.attempts));
    } catch (cause) {
      if (!(cause instanceof LeaseLost)) throw cause;
    }
  }

  function process(jobId: string): Promise<void> {
    const task = pool.run(() => processNow(jobId)).catch((error) => {
      logger.error("job processing crashed", { job_id: jobId, error });
    });
    running.add(task);
    task.finally(() => running.delete(task));
    return task;
  }

  return {
    id,
    process,
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
