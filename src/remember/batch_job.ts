/**
 * The jobs a batch runs (see `batch.ts`): what its stages made of each so far, and the memory
 * each stores.
 */
import type { MemoryAttributes } from "../pipeline/attributes.ts";
import type { MemoryKey } from "../pipeline/remember.ts";
import type { JobRecord } from "../jobs/job_queue.ts";
import type { IndexedMemory } from "./landing.ts";

/** A job of a batch, and what its stages made so far. */
export interface BatchJob {
  record: JobRecord;
  key: MemoryKey;
  /** Aborts the job's calls once its lease is found lost. */
  lost: AbortController;
  text?: string;
  attributes?: MemoryAttributes;
  ciphertext?: Uint8Array<ArrayBuffer>;
  blobId?: string;
  /** Its memory was indexed in this attempt: a failure from then on is the landing's. */
  indexed?: boolean;
  /** Done, failed or given up: no more renewals. */
  over?: boolean;
  /** The text's place this job claimed (see `TextClaims`), renewed with its lease. */
  claimed?: string;
}

/** The job of a leased record, before its stages: its memory's id is the job's. */
export function batchJob(record: JobRecord): BatchJob {
  return {
    record,
    key: {
      memoryId: record.job_id,
      owner: record.owner,
      namespace: record.namespace,
      createdAt: Date.parse(record.created_at),
    },
    lost: new AbortController(),
  };
}

/** The memory a job stores, as the landing hears of it. */
export function memoryOf(job: BatchJob): IndexedMemory {
  return {
    memoryId: job.key.memoryId,
    owner: job.key.owner,
    namespace: job.key.namespace,
    attributes: job.attributes ?? {},
  };
}
