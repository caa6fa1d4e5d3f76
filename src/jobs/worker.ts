/**
 * The job worker: runs remember jobs through the remember pipeline (encrypt, store, then index) in
 * batches, with a time limit on every backend call. The jobs delivered while a batch runs wait for
 * the next one; a batch takes up to `batchSize` of them, at most `concurrency` batches run at once
 * (twice as many while 128 full batches or more wait), a batch starts beside a running one only
 * once a quarter of `batchSize` waits, and each stage runs once per batch: one lease
 * commit, the texts and saved ciphertexts read together, the encryptions and blob uploads run
 * concurrently, one commit keeps the new ciphertexts, one embedding call (while the blobs upload)
 * and one index upsert write every memory, and one commit completes the jobs. A job delivered again
 * while this worker has it (waiting or running) joins it rather than being taken twice.
 *
 * Jobs on a later attempt (retried, or given back after a crash) run in groups of at most 4
 * (see `runBatch`).
 *
 * A job `vet` refuses (it updates a memory erased or updated meanwhile) fails. A job whose text
 * is already a memory of its namespace (or of an earlier job of the batch) stores nothing: it
 * is done as a `duplicate_of` that memory; when another job (here, or on another relayer
 * sharing `textClaims`) is storing that text, the batch waits for it first. Once a batch's
 * memories are indexed, and before its jobs are done, `indexed` hears of them (the relayer
 * schedules expiries and erases the memories they replace); when it fails, the jobs are tried
 * again (indexing again is harmless).
 *
 * Every stage is idempotent per memory id: the ciphertext is kept with the job before the blob
 * is put (so putting it again gives the same blob), the memory id is the job id, so re-delivery
 * resumes and the index write is an upsert. The blob id is recorded when the job completes; an
 * attempt that fails after its upload records it first, so its retry does not upload again.
 *
 * A job may run longer than its lease: while a batch runs, the worker renews its jobs' leases
 * every third of `leaseMs`, so no other worker takes them over. If a renewal finds a job's
 * lease lost (this worker stalled past it and another took the job), the worker aborts that
 * job's calls and drops it from the batch without saving, finishing or retrying anything: the
 * queue refuses those changes from a worker that no longer holds the job (`LeaseLost`).
 */
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { decodePayload, type MemoryAttributes } from "../pipeline/attributes.ts";
import type {
  MemoryKey,
  PreparedText,
  RememberPipeline,
  StepOptions,
} from "../pipeline/remember.ts";
import { textHeldBy } from "../pipeline/remember.ts";
import { type JobQueue, type JobRecord, LeaseLost } from "./job_queue.ts";
import { MemoryTextClaims, type TextClaims } from "./text_claims.ts";
import { afterFailure, jobError, permanent, suspect } from "./attempts.ts";
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
  /** For each memory of a batch, why it may not be stored (a sentence), or `undefined`. */
  vet?: (memories: IndexedMemory[]) => Promise<(string | undefined)[]>;
  /**
   * Called with the memories of each batch once they are indexed, before their jobs are done:
   * why each did not stay (erased as it landed; its job fails), or `undefined`.
   */
  indexed?: (memories: IndexedMemory[]) => Promise<(string | undefined)[]>;
  /**
   * Hears the text of each memory a job stored, once the job is done: the relayer keeps it for
   * recall, which would otherwise read and decrypt its blob again.
   */
  keepText?: (owner: string, blobId: string, text: string) => void;
  /** Hears of the memories whose jobs failed for good (an update's claim is then released). */
  failed?: (memories: IndexedMemory[]) => Promise<void>;
  /** Hears how jobs end and how long batches take (the relayer's metrics). */
  observe?: WorkerObserver;
  /** Which job is storing a text (default: in this process's memory). */
  textClaims?: TextClaims;
}

/** A memory a job stored, as `indexed` hears of it. */
export interface IndexedMemory {
  memoryId: string;
  owner: string;
  namespace: string;
  attributes: MemoryAttributes;
}

export interface Worker {
  readonly id: string;
  /**
   * Processes a job in the next batch (also what queue deliveries call); resolves once that
   * batch is over. A job this worker already has, waiting or running, is joined, not taken twice.
   */
  process(jobId: string): Promise<void>;
  /** Resolves once no job is waiting or being processed. */
  idle(): Promise<void>;
  /** Whether `jobs` jobs delivered now would start at once, in a batch of their own. */
  ready(jobs: number): boolean;
  /** The jobs it holds now. */
  stats(): WorkerStats;
}

/** A job of a batch, and what its stages made so far. */
interface Job {
  record: JobRecord;
  key: MemoryKey;
  /** Aborts the job's calls once its lease is found lost. */
  lost: AbortController;
  text?: string;
  attributes?: MemoryAttributes;
  ciphertext?: Uint8Array<ArrayBuffer>;
  blobId?: string;
  /** Done, failed or given up: no more renewals. */
  over?: boolean;
  /** The text's place this job claimed (see `TextClaims`), renewed with its lease. */
  claimed?: string;
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
  const timeoutMs = deps.callTimeoutMs ?? 30_000;
  /** Jobs that must be waiting for a batch to start beside a running one. */
  const alongside = Math.ceil(batchSize / ALONGSIDE_SHARE);
  const { queue, pipeline, logger, observe } = deps;
  const acceptedAt = (job: Job) => Date.parse(job.record.created_at);
  /** Jobs delivered and not yet in a batch, in order, with what their deliveries wait on. */
  const waiting = new Map<string, PromiseWithResolvers<void>>();
  /** Jobs in a running batch, with what their deliveries wait on. */
  const taken = new Map<string, Promise<void>>();
  const batches = new Set<Promise<void>>();
  const textClaims = deps.textClaims ?? new MemoryTextClaims();
  let scheduled = false;

  const callOptions = (job: Job): StepOptions => ({ timeoutMs, signal: job.lost.signal });

  /** Whether `error` (or the job's state) says the job was taken over: then it just stops. */
  function takenOver(job: Job, error?: unknown): boolean {
    if (!(error instanceof LeaseLost) && !job.lost.signal.aborted) return false;
    job.over = true;
    logger.warn("job taken over by another worker; this attempt stops", {
      job_id: job.record.job_id,
      attempts: job.record.attempts,
    });
    return true;
  }

  /**
   * Retries the job later, or fails it (see `afterFailure`). A blob already uploaded is
   * recorded first, so the next attempt does not upload it again.
   */
  async function giveUpAttempt(job: Job, error: unknown): Promise<void> {
    if (takenOver(job, error)) return;
    job.over = true;
    let record = job.record;
    logger.warn("job attempt failed", {
      job_id: record.job_id,
      attempts: record.attempts,
      error: error instanceof Error ? error : String(error),
    });
    const message = jobError(error);
    try {
      if (job.blobId && !record.blob_id) {
        record = await queue.checkpoint(record, { blob_id: job.blobId });
      }
      const age = Date.now() - acceptedAt(job);
      const next = afterFailure(error, record.attempts, queue.maxAttempts, age);
      if (!next.fail) {
        await queue.retry(record, message, next.delayMs, { counted: next.counted });
        observe?.jobRetried();
        return;
      }
      await queue.fail(record, message);
      observe?.jobEnded("failed", acceptedAt(job));
      await deps.failed?.([memoryOf(job)]).catch((cause) => {
        logger.warn("cannot release what a failed job held", {
          job_id: record.job_id,
          error: cause,
        });
      });
    } catch (cause) {
      if (!(cause instanceof LeaseLost)) throw cause;
    }
  }

  /** Runs `stage` for each job; those it throws for give up their attempt. Returns the rest. */
  async function each(jobs: Job[], stage: (job: Job) => Promise<void>): Promise<Job[]> {
    const failed = new Map<Job, unknown>();
    await Promise.all(jobs.map((job) => stage(job).catch((error) => failed.set(job, error))));
    await Promise.all([...failed].map(([job, error]) => giveUpAttempt(job, error)));
    return jobs.filter((job) => !failed.has(job));
  }

  /** Fails each job `reasons` gives a refusal (in the jobs' order); returns the others. */
  function refuse(jobs: Job[], reasons: (string | undefined)[]): Promise<Job[]> {
    const why = new Map(jobs.map((job, i) => [job, reasons[i]]));
    return each(jobs, (job) => {
      const refusal = why.get(job);
      return refusal ? Promise.reject(new SvcError("conflict", refusal)) : Promise.resolve();
    });
  }

  /** Keeps the jobs still held; those a batch change found lost stop. */
  function held(jobs: Job[], applied: boolean[]): Job[] {
    return jobs.filter((job, i) => applied[i] || !takenOver(job, new LeaseLost(job.record.job_id)));
  }

  /** Encrypts (unless a ciphertext was kept), keeps new ciphertexts, uploads: sets `blobId`. */
  async function store(jobs: Job[]): Promise<Job[]> {
    // Only an earlier lease (an attempt, counted or not, or one a crash cut short) can have kept one.
    const again = jobs.filter((job) => suspect(job.record, 1) || job.record.error !== undefined);
    const kept = again.length > 0 ? await queue.ciphertexts(again.map((j) => j.record.job_id)) : [];
    again.forEach((job, i) => job.ciphertext = kept[i] ?? undefined);
    const fresh = await each(jobs.filter((job) => !job.ciphertext), async (job) => {
      job.ciphertext = await pipeline.encrypt({ ...job.key, text: job.text! }, callOptions(job));
    });
    const saved = await queue.saveCiphertexts(
      fresh.map((job) => ({ record: job.record, ciphertext: job.ciphertext! })),
    );
    const lost = new Set(fresh.filter((_, i) => !saved[i]));
    for (const job of lost) takenOver(job, new LeaseLost(job.record.job_id));
    const ready = jobs.filter((job) => job.ciphertext && !lost.has(job) && !job.over);
    return await each(ready, async (job) => {
      job.blobId = await pipeline.store(
        { ...job.key, ciphertext: job.ciphertext! },
        callOptions(job),
      );
    });
  }

  /**
   * Indexes the jobs' memories in one step, from what `prepare` made of their texts; when one
   * memory is refused, each on its own.
   */
  async function index(jobs: Job[], prepared: Map<Job, PreparedText>): Promise<Job[]> {
    const memory = (job: Job) => ({
      ...job.key,
      blobId: job.blobId!,
      prepared: prepared.get(job)!,
    });
    try {
      await pipeline.indexMany(jobs.map(memory), { timeoutMs });
      return jobs;
    } catch (error) {
      if (jobs.length === 1 || !permanent(error)) {
        return await each(jobs, () => Promise.reject(error));
      }
      return await each(jobs, (job) => pipeline.index(memory(job), callOptions(job)));
    }
  }

  /**
   * Finishes the jobs whose text is already a memory; returns the others, their texts claimed
   * for them. A job that would store a text another job has claimed waits for that one to end,
   * then looks again: it finds the text a memory, unless the other job failed to store it. An
   * update to a text another memory holds fails.
   */
  async function skipDuplicates(jobs: Job[]): Promise<Job[]> {
    const texts = jobs.map((job) => ({ ...job.key, text: job.text!, attributes: job.attributes }));
    let found = await pipeline.duplicates(texts);
    // A retried job may find its own memory, indexed before a crash: it goes on.
    const of = (job: Job, i: number) =>
      job.attributes?.replaces === undefined && found[i].original !== job.record.job_id
        ? found[i].original
        : undefined;
    /** The texts the batch holds, each by the job that claimed it. */
    const ours = new Map<string, Job>();
    /** The texts the batch would store, each claimed for the job holding it, else its first. */
    const claims = () => {
      const byPlace = new Map<string, Job>();
      jobs.forEach((job, i) => {
        const { place } = found[i];
        if (of(job, i) === undefined && !byPlace.has(place)) {
          byPlace.set(place, ours.get(place) ?? job);
        }
      });
      return [...byPlace].map(([place, job]) => ({ place, job }));
    };
    const claim = async () => {
      for (;;) {
        const wanted = claims();
        const asked = wanted.map(({ place, job }) => ({ place, job: job.record.job_id }));
        if (await textClaims.claim(asked, Date.now())) {
          for (const { place, job } of wanted) {
            ours.set(place, job);
            job.claimed = place;
          }
          // Held now: a text stored before the claim (its job released it since) is indexed.
          found = await pipeline.duplicates(texts);
          if (claims().every(({ place }) => ours.has(place))) return;
        } else {
          // Holding none while it waits, no two batches each hold what the other waits for.
          await textClaims.release([...ours.values()].map((job) => job.record.job_id));
          for (const job of ours.values()) job.claimed = undefined;
          ours.clear();
          await textClaims.released(asked);
          found = await pipeline.duplicates(texts);
        }
      }
    };
    try {
      await claim();
    } catch (error) {
      // The claims' store failed: the attempt fails as a backend's would.
      await each(jobs, () => Promise.reject(error));
      return [];
    }
    const stored = jobs.filter((job, i) => of(job, i) === undefined);
    // An update to a text another memory holds would make two of it: it fails.
    const clashes = stored.map((job) => {
      const { original } = found[jobs.indexOf(job)];
      const { replaces } = job.attributes ?? {};
      const other = original !== undefined && original !== replaces &&
        original !== job.record.job_id;
      return replaces !== undefined && other ? textHeldBy(original) : undefined;
    });
    const duplicates = jobs.flatMap((job, i) => {
      const original = of(job, i);
      return original ? [{ job, original }] : [];
    });
    if (duplicates.length === 0) return await refuse(stored, clashes);
    const completed = await queue.completeMany(duplicates.map(({ job, original }) => ({
      record: job.record,
      patch: { memory_id: original, duplicate_of: original },
    })));
    for (const { job } of duplicates) job.over = true;
    for (const job of held(duplicates.map(({ job }) => job), completed)) {
      observe?.jobEnded("duplicate", acceptedAt(job));
    }
    return await refuse(stored, clashes);
  }

  /** The memory a job stores, as `vet` and `indexed` hear of it. */
  const memoryOf = (job: Job): IndexedMemory => ({
    memoryId: job.key.memoryId,
    owner: job.key.owner,
    namespace: job.key.namespace,
    attributes: job.attributes ?? {},
  });

  async function runStages(jobs: Job[]): Promise<void> {
    const payloads = await queue.payloads(jobs.map((job) => job.record.job_id));
    jobs.forEach((job, i) => {
      if (payloads[i] === null) return;
      ({ text: job.text, attributes: job.attributes } = decodePayload(payloads[i]));
    });
    let live = await each(jobs, (job) => {
      if (job.text !== undefined) return Promise.resolve();
      return Promise.reject(new SvcError("internal", "The job's text is no longer available"));
    });
    live = await refuse(live, await deps.vet?.(live.map(memoryOf)) ?? []);
    try {
      await storeAndIndex(await skipDuplicates(live));
    } finally {
      // A claim left behind runs out after TEXT_CLAIM_MS: the batch's own outcome stands. A job
      // taken over (its lease lost) leaves its claim to the worker that has it now.
      const ours = live.filter((job) => job.claimed && !job.lost.signal.aborted);
      await textClaims.release(ours.map((job) => job.record.job_id)).catch((error) => {
        logger.warn("cannot release the texts a batch stored", { error });
      });
    }
  }

  /** Stores, indexes and completes the jobs. */
  async function storeAndIndex(live: Job[]): Promise<void> {
    // Embedding needs no blob id: it runs while the blobs upload.
    const preparing = pipeline.prepare(
      live.map((job) => ({ ...job.key, text: job.text!, attributes: job.attributes })),
      { timeoutMs },
    ).then((made) => new Map(live.map((job, i) => [job, made[i]])));
    preparing.catch(() => {}); // awaited below, once the uploads are over
    const toStore = live.filter((job) => !job.record.blob_id);
    for (const job of live) job.blobId ??= job.record.blob_id;
    const stored = new Set(await store(toStore));
    live = live.filter((job) => (job.record.blob_id || stored.has(job)) && !takenOver(job));
    let prepared: Map<Job, PreparedText>;
    try {
      prepared = await preparing;
    } catch (error) {
      await each(live, () => Promise.reject(error));
      return;
    }
    live = await index(live, prepared);
    live = live.filter((job) => !takenOver(job));
    if (deps.indexed) {
      let gone: (string | undefined)[];
      try {
        gone = await deps.indexed(live.map(memoryOf));
      } catch (error) {
        await each(live, () => Promise.reject(error));
        return;
      }
      live = await refuse(live, gone);
    }
    const completed = await queue.completeMany(live.map((job) => ({
      record: job.record,
      patch: { blob_id: job.blobId, memory_id: job.record.job_id },
    })));
    for (const job of held(live, completed)) {
      job.over = true;
      deps.keepText?.(job.key.owner, job.blobId!, job.text!);
      observe?.jobEnded("done", acceptedAt(job));
      logger.debug("job done", { job_id: job.record.job_id, attempts: job.record.attempts });
    }
  }

  /**
   * Renews the leases of the batch's unfinished jobs every third of `leaseMs` until `stop`
   * aborts; aborts a job's `lost` when a renewal finds its lease gone. A renewal that fails
   * (the job store is down) is tried again at the next beat.
   */
  async function heartbeat(jobs: Job[], stop: AbortSignal) {
    const beatMs = Math.max(1, Math.floor(queue.leaseMs / 3));
    while (!stop.aborted) {
      await sleep(beatMs, stop);
      if (stop.aborted) return;
      await Promise.all(
        jobs.filter((job) => !job.over).map(async (job) => {
          try {
            if (!(await queue.renew(job.record)) && !job.over) {
              job.lost.abort(new LeaseLost(job.record.job_id));
            }
          } catch (error) {
            logger.warn("cannot renew a job's lease", { job_id: job.record.job_id, error });
          }
        }),
      );
      // The texts the jobs claimed, held as long as their leases.
      const held = jobs.filter((job) => job.claimed && !job.over && !job.lost.signal.aborted)
        .map((job) => ({ place: job.claimed!, job: job.record.job_id }));
      await textClaims.claim(held, Date.now()).catch((error) => {
        logger.warn("cannot renew the texts a batch stores", { error });
      });
    }
  }

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

  async function runGroup(jobIds: string[]): Promise<void> {
    const records = (await queue.leaseMany(jobIds, id)).filter((r): r is JobRecord => r !== null);
    if (records.length === 0) return;
    const jobs = records.map((record): Job => ({
      record,
      key: {
        memoryId: record.job_id,
        owner: record.owner,
        namespace: record.namespace,
        createdAt: Date.parse(record.created_at),
      },
      lost: new AbortController(),
    }));
    const done = new AbortController();
    const beating = heartbeat(jobs, done.signal);
    const started = performance.now();
    try {
      await runStages(jobs);
    } finally {
      done.abort();
      await beating;
      observe?.batchRan((performance.now() - started) / 1000);
    }
  }

  /**
   * Starts batches of waiting jobs while fewer than `concurrency` run, or twice as many while a
   * large import waits (see {@link BACKLOG_BATCHES}); beside a running batch, only once
   * `alongside` jobs wait (see {@link ALONGSIDE_SHARE}).
   */
  function pump(): void {
    const limit = waiting.size >= BACKLOG_BATCHES * batchSize ? 2 * concurrency : concurrency;
    while (batches.size < limit && waiting.size >= (batches.size === 0 ? 1 : alongside)) {
      const batch = [...waiting].slice(0, batchSize);
      for (const [jobId, delivery] of batch) {
        waiting.delete(jobId);
        taken.set(jobId, delivery.promise);
      }
      const jobIds = batch.map(([jobId]) => jobId);
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

  function process(jobId: string): Promise<void> {
    const known = waiting.get(jobId)?.promise ?? taken.get(jobId);
    if (known) return known;
    const delivery = Promise.withResolvers<void>();
    waiting.set(jobId, delivery);
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
    ready: (jobs) =>
      waiting.size === 0 && batches.size < concurrency && jobs <= batchSize &&
      (batches.size === 0 || jobs >= alongside),
    async idle() {
      while (batches.size > 0 || waiting.size > 0) {
        await (batches.size > 0 ? Promise.all(batches) : Promise.resolve());
      }
    },
  };
}
