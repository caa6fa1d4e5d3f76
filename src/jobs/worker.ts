/**
 * The remember pipeline: embed → encrypt → put blob → index, run from the job queue by a
 * bounded pool. Every stage is idempotent: the blob id is checkpointed on the job record
 * before the index write, and the memory id is the job id, so re-delivery resumes and the
 * index write is an upsert.
 */
import { SvcError } from "../errors.ts";
import type { MemoryServiceDependencies } from "../services/memories.ts";
import type { JobRecord } from "./job_queue.ts";
import { Semaphore, withTimeout } from "./semaphore.ts";

/** The memory service's backends, plus the pool's size and per-call time limit. */
export interface WorkerDependencies extends MemoryServiceDependencies {
  /** Jobs processed at once. */
  concurrency?: number;
  /** Limit for each backend call. */
  callTimeoutMs?: number;
}

export interface Worker {
  readonly id: string;
  /** Processes one job now (also what queue deliveries call). */
  process(jobId: string): Promise<void>;
  /** Resolves once no job is being processed. */
  idle(): Promise<void>;
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
  const { queue, logger } = deps;

  async function runStages(record: JobRecord): Promise<void> {
    const text = await queue.payload(record.job_id);
    if (text === null) throw new SvcError("internal", "The job's text is no longer available");
    const createdAt = Date.parse(record.created_at);
    if (!record.blob_id) {
      const plaintext = new TextEncoder().encode(text);
      const ciphertext = await withTimeout(
        timeoutMs,
        "Encryption",
        (signal) => deps.cipher.encrypt(record.owner, plaintext, { signal }),
      );
      const blobId = await withTimeout(
        timeoutMs,
        "Blob upload",
        (signal) =>
          deps.blobs.put(ciphertext, {
            owner: record.owner,
            namespace: record.namespace,
            memoryId: record.job_id,
            createdAt,
          }, { signal }),
      );
      record = await queue.checkpoint(record, { blob_id: blobId });
    }
    const [vector] = await withTimeout(
      timeoutMs,
      "Embedding",
      (signal) => deps.embedder.embed([text], { signal }),
    );
    const terms = await deps.hasher.hash(record.owner, text);
    await withTimeout(timeoutMs, "Indexing", (signal) =>
      deps.vectors.upsert([{
        id: record.job_id,
        owner: record.owner,
        namespace: record.namespace,
        blobId: record.blob_id!,
        vector,
        createdAt,
        terms,
      }], { signal }));
    await deps.lexicon.add(record.owner, record.namespace, record.job_id, terms);
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
