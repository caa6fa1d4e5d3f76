/**
 * The job worker: gathers the remember jobs delivered to it into batches and runs them (what a
 * batch does: `batch.ts`). The jobs delivered while a batch runs wait for the next one; a batch
 * takes up to `batchSize` of them, at most `concurrency` batches run at once (twice as many while
 * 128 full batches or more wait), and a batch starts beside a running one only once a quarter of
 * `batchSize` waits. A job delivered again while this worker has it (waiting or running) joins it
 * rather than being taken twice.
 *
 * The owners whose jobs wait share each batch in turn, one job each round: one account's import
 * of thousands of memories delays another's remember by a batch at most, not by the whole import.
 *
 * Jobs on a later attempt (retried, or given back after a crash) run in groups of at most 4
 * (see `runBatch`).
 */
import type { Logger } from "../log.ts";
import type { RememberPipeline } from "../pipeline/remember.ts";
import type { MemoryReader } from "../services/reader.ts";
import type { MemoryLanding } from "./landing.ts";
import type { JobQueue } from "../jobs/job_queue.ts";
import type { TextClaims } from "./text_claims.ts";
import { suspect } from "../jobs/attempts.ts";
import { batchRunner } from "./batch.ts";
import type { WorkerObserver, WorkerStats } from "./worker_observer.ts";

export type { WorkerObserver, WorkerStats };

export interface WorkerDependencies {
  queue: JobQueue;
  pipeline: RememberPipeline;
  logger: Logger;
  /**
   * Batches processed at once (default 2; twice as many while 128 full batches wait). A batch
   * starts beside a running one only once a quarter of `batchSize` jobs waits.
   */
  concurrency?: number;
  /** Jobs a batch takes at most (default 64). */
  batchSize?: number;
  /** Limit for each backend call (default 30 s). */
  callTimeoutMs?: number;
  /**
   * How memories land: vetted before they are stored (an update's claim), settled once indexed
   * (expiries, the memories updates replace, erases meanwhile), released once their jobs fail
   * for good. Without it, every memory stored is new and stays.
   */
  landing?: Pick<MemoryLanding, "vet" | "indexed" | "failed">;
  /**
   * Keeps the text of each memory stored, just before its job is done (so that whoever sees it
   * done finds the text kept): recall would otherwise read and decrypt its blob again.
   */
  reader?: Pick<MemoryReader, "keep">;
  /** Hears how jobs end and how long batches take (the relayer's metrics). */
  observe?: WorkerObserver;
  /** Which job is storing a text (default: in this process's memory). */
  textClaims?: TextClaims;
  /**
   * The data directory's disk: while it is under its floor no batch starts, the jobs held wait
   * (pending), and the worker looks again every `diskCheckMs` (default 2 s), one timer, no loop.
   */
  disk?: { readonly low: boolean };
  diskCheckMs?: number;
  /** Runs `again` after `ms` (default `setTimeout`); returns what cancels it. */
  later?: (again: () => void, ms: number) => () => void;
}

function setLater(again: () => void, ms: number): () => void {
  const timer = setTimeout(again, ms);
  return () => clearTimeout(timer);
}

export interface Worker {
  readonly id: string;
  /**
   * Processes a job in the next batch (also what queue deliveries call); resolves once that
   * batch is over. A job this worker already has, waiting or running, is joined, not taken twice.
   * `owner`, when known, is whose turn the job waits for (see the module documentation); jobs
   * delivered without one share a turn.
   */
  process(jobId: string, owner?: string): Promise<void>;
  /** Resolves once no job is waiting or being processed. */
  idle(): Promise<void>;
  /**
   * Takes no more jobs, and resolves once the running batches are over. The jobs waiting for a
   * batch are let go: they stay `pending` in their records, for the next start (or another
   * relayer) to take.
   */
  stop(): Promise<void>;
  /** Whether `jobs` jobs delivered now would start at once, in a batch of their own. */
  ready(jobs: number): boolean;
  /** Whether it has the job, waiting for a batch or in one running. */
  holds(jobId: string): boolean;
  /** The jobs it holds now. */
  stats(): WorkerStats;
}

/** Jobs leased before that run together at most. */
const AGAIN = 4;

/**
 * Full batches that must be waiting for the worker to run twice `concurrency` batches at once:
 * a large import (8,192 jobs in batches of 64, several seconds of work), whose batches then
 * overlap more of one another's commits. Below it, more batches would take the event loop from
 * the requests accepting jobs and gain nothing.
 */
const BACKLOG_BATCHES = 128;

/**
 * The share of `batchSize` that must be waiting for a batch to start while another runs. Jobs
 * delivered one at a time (a caller remembering a memory per request) then wait for the running
 * batch and go on together: a batch of one costs the relayer nearly what a batch of sixteen does.
 */
const ALONGSIDE_SHARE = 4;

export function createWorker(deps: WorkerDependencies): Worker {
  const id = crypto.randomUUID();
  const concurrency = deps.concurrency ?? 2;
  const batchSize = deps.batchSize ?? 64;
  /** Jobs that must be waiting for a batch to start beside a running one. */
  const alongside = Math.ceil(batchSize / ALONGSIDE_SHARE);
  const { queue, logger } = deps;
  /** Jobs delivered and not yet in a batch, with what their deliveries wait on. */
  const waiting = new Map<string, PromiseWithResolvers<void>>();
  /** The ids in `waiting` by owner, each in order; the owners in the order of their turns. */
  const turns = new Map<string, Set<string>>();
  /** Jobs in a running batch, with what their deliveries wait on. */
  const taken = new Map<string, Promise<void>>();
  const batches = new Set<Promise<void>>();
  let scheduled = false;
  let stopped = false;
  /** Cancels the look at the disk a full disk scheduled, while one is. */
  let recheck: (() => void) | undefined;
  const runGroup = batchRunner(deps, id);

  /**
   * Runs a batch: its jobs on a first attempt together, those leased before (retried, or given
   * back after a crash) in groups of `AGAIN` after them. A crash costs every job leased at the
   * time an attempt, so a job that may be what crashed the process shares few.
   */
  async function runBatch(jobIds: string[]): Promise<void> {
    if (jobIds.length === 1) return await runGroup(jobIds);
    const records = await queue.getMany(jobIds);
    // Leased before: retried, or interrupted (that attempt not counted, but the crash may be its);
    // not one leased to this worker as it was accepted.
    const before = (i: number) => {
      const record = records[i];
      if (!record) return false;
      return suspect(record, record.status === "running" && record.worker === id ? 1 : 0);
    };
    const again = jobIds.filter((_, i) => before(i));
    const first = jobIds.filter((_, i) => !before(i));
    if (first.length > 0) await runGroup(first);
    for (let i = 0; i < again.length; i += AGAIN) await runGroup(again.slice(i, i + AGAIN));
  }

  /**
   * Starts batches of waiting jobs while fewer than `concurrency` run, or twice as many while a
   * large import waits (see {@link BACKLOG_BATCHES}); beside a running batch, only once
   * `alongside` jobs wait (see {@link ALONGSIDE_SHARE}).
   */
  function pump(): void {
    if (stopped) return;
    if (deps.disk?.low) {
      recheck ??= (deps.later ?? setLater)(() => {
        recheck = undefined;
        pump();
      }, deps.diskCheckMs ?? 2_000);
      return;
    }
    const limit = waiting.size >= BACKLOG_BATCHES * batchSize ? 2 * concurrency : concurrency;
    while (batches.size < limit && waiting.size >= (batches.size === 0 ? 1 : alongside)) {
      const jobIds = nextBatch();
      const batch = jobIds.map((jobId) => [jobId, waiting.get(jobId)!] as const);
      for (const [jobId, delivery] of batch) {
        waiting.delete(jobId);
        taken.set(jobId, delivery.promise);
      }
      const run: Promise<void> = runBatch(jobIds).catch((error) => {
        logger.error("job processing crashed", { job_ids: jobIds.length, error });
      }).finally(() => {
        batches.delete(run);
        for (const [jobId, delivery] of batch) {
          taken.delete(jobId);
          delivery.resolve();
        }
        pump();
      });
      batches.add(run);
    }
  }

  /**
   * Up to `batchSize` waiting jobs, one of each owner's in turn: an owner whose job is taken goes
   * to the back of the turns (a `Map` iteration reaches the entries set during it), and stays
   * there for the next batch.
   */
  function nextBatch(): string[] {
    const jobIds: string[] = [];
    for (const [owner, jobs] of turns) {
      if (jobIds.length === batchSize) break;
      const [jobId] = jobs;
      jobs.delete(jobId);
      turns.delete(owner);
      if (jobs.size > 0) turns.set(owner, jobs);
      jobIds.push(jobId);
    }
    return jobIds;
  }

  function process(jobId: string, owner = ""): Promise<void> {
    if (stopped) return Promise.resolve();
    const known = waiting.get(jobId)?.promise ?? taken.get(jobId);
    if (known) return known;
    const delivery = Promise.withResolvers<void>();
    waiting.set(jobId, delivery);
    turns.set(owner, (turns.get(owner) ?? new Set()).add(jobId));
    // Deliveries of the same moment (a bulk, a burst of messages) make one batch.
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(() => {
        scheduled = false;
        pump();
      });
    }
    return delivery.promise;
  }

  return {
    id,
    process,
    stats: () => ({ waiting: waiting.size, running: taken.size }),
    holds: (jobId) => waiting.has(jobId) || taken.has(jobId),
    ready: (jobs) =>
      waiting.size === 0 && batches.size < concurrency && jobs <= batchSize &&
      (batches.size === 0 || jobs >= alongside),
    async idle() {
      while (batches.size > 0 || waiting.size > 0) {
        await (batches.size > 0 ? Promise.all(batches) : Promise.resolve());
      }
    },
    async stop() {
      stopped = true;
      recheck?.();
      recheck = undefined;
      for (const delivery of waiting.values()) delivery.resolve();
      waiting.clear();
      turns.clear();
      while (batches.size > 0) await Promise.all(batches);
    },
  };
}
