/**
 * The job worker: runs each remember job through the remember pipeline (store, then index)
 * in a bounded pool, with a time limit on every backend call. Every stage is idempotent: the
 * ciphertext is checkpointed on the job record before the upload (a resumed job puts the same
 * bytes, so the same content-addressed blob) and the blob id before the index write, and the
 * memory id is the job id, so re-delivery resumes and the index write is an upsert.
 */
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { RememberPipeline } from "../pipeline/remember.ts";
import type { JobQueue, JobRecord } from "./job_queue.ts";
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

/**
 * The largest ciphertext checkpointed on the job record (a record must stay under Deno KV's
 * 64 KiB value limit). A larger one is not: a crash between its upload and the blob id's
 * checkpoint leaves a second blob of the memory.
 */
export const MAX_CHECKPOINTED_CIPHERTEXT_BYTES = 36 * 1024;

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

  async function runStages(record: JobRecord): Promise<void> {
    const text = await queue.payload(record.job_id);
    if (text === null) throw new SvcError("internal", "The job's text is no longer available");
    const key = {
      memoryId: record.job_id,
      owner: record.owner,
      namespace: record.namespace,
      createdAt: Date.parse(record.created_at),
    };
    if (!record.blob_id) {
      let ciphertext: Uint8Array<ArrayBuffer>;
      if (record.ciphertext) {
        ciphertext = Uint8Array.fromBase64(record.ciphertext);
      } else {
        ciphertext = await pipeline.encrypt({ ...key, text }, { timeoutMs });
        if (ciphertext.byteLength <= MAX_CHECKPOINTED_CIPHERTEXT_BYTES) {
          record = await queue.checkpoint(record, { ciphertext: ciphertext.toBase64() });
        }
      }
      const blobId = await pipeline.store({ ...key, ciphertext }, { timeoutMs });
      record = await queue.checkpoint(record, { blob_id: blobId, ciphertext: undefined });
    }
    await pipeline.index({ ...key, text, blobId: record.blob_id! }, { timeoutMs });
    await queue.complete(record, { memory_id: record.job_id });
  }

  async function processNow(jobId: string): Promise<void> {
    const record = await queue.lease(jobId, id);
    if (!record) return;
    try {
      await runStages(record);
      logger.debug("job done", { job_id: jobId, attempts: record.attempts });
    } catch (error) {
      const message = jobError(error);
      const permanent = error instanceof SvcError && error.status < 500;
      logger.warn("job attempt failed", {
        job_id: jobId,
        attempts: record.attempts,
        error: error instanceof Error ? error : String(error),
      });
      const latest = (await queue.get(jobId)) ?? record;
      if (permanent || latest.attempts >= queue.maxAttempts) await queue.fail(latest, message);
      else await queue.retry(latest, message, retryDelayMs(latest.attempts));
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
