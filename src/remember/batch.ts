/**
 * A batch of remember jobs, run through the remember pipeline (encrypt, store, then index) with a
 * time limit on every backend call. Each stage runs once per batch: one lease commit, the texts
 * and saved ciphertexts read together, the encryptions and blob uploads run concurrently, one
 * commit keeps the new ciphertexts, one embedding call (while the blobs upload) and one index
 * upsert write every memory, and one commit completes the jobs.
 *
 * A job the landing refuses (it updates a memory erased or updated meanwhile) fails. A job whose
 * text is already a memory of its namespace (or of an earlier job of the batch) stores nothing: it
 * is done as a `duplicate_of` that memory; when another job (here, or on another relayer sharing
 * `textClaims`) is storing that text, the batch waits for it first (`batch_texts.ts`). Once a
 * batch's memories are indexed, and before its jobs are done, they land (`landing.ts`: expiries
 * scheduled, the memories they replace erased); when that fails, the jobs are tried again (indexing
 * again is harmless).
 *
 * Every stage is idempotent per memory id: the ciphertext is kept with the job before the blob
 * is put (so putting it again gives the same blob), the memory id is the job id, so re-delivery
 * resumes and the index write is an upsert. The blob id is recorded when the job completes; an
 * attempt that fails after its upload records it first, so its retry does not upload again.
 *
 * A job may run longer than its lease: while a batch runs, the worker renews its jobs' leases
 * every third of `leaseMs` (`batch_heartbeat.ts`), so no other worker takes them over. If a
 * renewal finds a job's lease lost (this worker stalled past it and another took the job), the
 * worker aborts that job's calls and drops it from the batch without saving, finishing or
 * retrying anything: the queue refuses those changes from a worker that no longer holds the job
 * (`LeaseLost`).
 */
import { SvcError } from "../errors.ts";
import { decodePayload } from "../pipeline/attributes.ts";
import type { PreparedText, StepOptions } from "../pipeline/remember.ts";
import { type JobRecord, LeaseLost } from "../jobs/job_queue.ts";
import { MemoryTextClaims, type TextClaims } from "./text_claims.ts";
import { afterFailure, jobError, permanent, suspect } from "../jobs/attempts.ts";
import { type BatchJob, batchJob, memoryOf } from "./batch_job.ts";
import { heartbeat } from "./batch_heartbeat.ts";
import { BatchTexts } from "./batch_texts.ts";
import type { WorkerDependencies } from "./worker.ts";

/**
 * What runs a worker's batches: leases the jobs of `jobIds` it can have to `workerId` and runs
 * them together; resolves once they are over.
 */
export function batchRunner(
  deps: WorkerDependencies,
  workerId: string,
): (jobIds: string[]) => Promise<void> {
  const batchDeps = { ...deps, textClaims: deps.textClaims ?? new MemoryTextClaims() };
  return async (jobIds) => {
    const leased = await deps.queue.leaseMany(jobIds, workerId);
    const records = leased.filter((record): record is JobRecord => record !== null);
    if (records.length === 0) return;
    await new BatchRun(batchDeps, records.map(batchJob)).run();
  };
}

/** What a batch runs with: the worker's dependencies, the text claims shared by its batches. */
type BatchDependencies = WorkerDependencies & { textClaims: TextClaims };

/** One batch of leased jobs, run through the stages (see the module documentation). */
class BatchRun {
  readonly #deps: BatchDependencies;
  readonly #jobs: BatchJob[];
  readonly #timeoutMs: number;

  constructor(deps: BatchDependencies, jobs: BatchJob[]) {
    this.#deps = deps;
    this.#jobs = jobs;
    this.#timeoutMs = deps.callTimeoutMs ?? 30_000;
  }

  /** Runs the stages while the jobs' leases are renewed; resolves once the jobs are over. */
  async run(): Promise<void> {
    const done = new AbortController();
    const beating = heartbeat(this.#deps, this.#jobs, done.signal);
    const started = performance.now();
    try {
      await this.#runStages();
    } finally {
      done.abort();
      await beating;
      this.#deps.observe?.batchRan((performance.now() - started) / 1000);
    }
  }

  /**
   * Reads and vets the jobs' texts, finishes the duplicates, then stores, indexes and completes
   * the rest; releases the texts the batch claimed.
   */
  async #runStages(): Promise<void> {
    let live = await this.#readTexts(this.#jobs);
    live = await this.#refuse(live, await this.#deps.landing?.vet(live.map(memoryOf)) ?? []);
    try {
      await this.#storeAndIndex(await this.#skipDuplicates(live));
    } finally {
      // A claim left behind runs out after TEXT_CLAIM_MS: the batch's own outcome stands. A job
      // taken over (its lease lost) leaves its claim to the worker that has it now.
      const ours = live.filter((job) => job.claimed && !job.lost.signal.aborted);
      await this.#deps.textClaims.release(ours.map((job) => job.record.job_id)).catch((error) => {
        this.#deps.logger.warn("cannot release the texts a batch stored", { error });
      });
    }
  }

  /** Reads the jobs' texts and attributes; a job whose text is gone fails. Returns the rest. */
  async #readTexts(jobs: BatchJob[]): Promise<BatchJob[]> {
    const payloads = await this.#deps.queue.payloads(jobs.map((job) => job.record.job_id));
    jobs.forEach((job, i) => {
      if (payloads[i] === null) return;
      ({ text: job.text, attributes: job.attributes } = decodePayload(payloads[i]));
    });
    return await this.#each(jobs, (job) => {
      if (job.text !== undefined) return Promise.resolve();
      return Promise.reject(new SvcError("internal", "The job's text is no longer available"));
    });
  }

  /**
   * Finishes the jobs whose text is already a memory; returns the others, their texts claimed
   * for them (see `BatchTexts`). An update to a text another memory holds fails.
   */
  async #skipDuplicates(jobs: BatchJob[]): Promise<BatchJob[]> {
    const texts = await BatchTexts.find(this.#deps, jobs);
    try {
      await texts.claim();
    } catch (error) {
      // The claims' store failed: the attempt fails as a backend's would.
      await this.#each(jobs, () => Promise.reject(error));
      return [];
    }
    const stored = texts.toStore();
    const clashes = texts.clashes(stored);
    const duplicates = texts.duplicates();
    if (duplicates.length === 0) return await this.#refuse(stored, clashes);
    const completed = await this.#deps.queue.completeMany(duplicates.map(({ job, original }) => ({
      record: job.record,
      patch: { memory_id: original, duplicate_of: original },
    })));
    for (const { job } of duplicates) job.over = true;
    for (const job of this.#held(duplicates.map(({ job }) => job), completed)) {
      this.#deps.observe?.jobEnded("duplicate", this.#acceptedAt(job));
    }
    return await this.#refuse(stored, clashes);
  }

  /** Stores, indexes and completes the jobs. */
  async #storeAndIndex(live: BatchJob[]): Promise<void> {
    // Embedding needs no blob id: it runs while the blobs upload. Its results pair with the
    // jobs it was asked for, not with those still live when it ends.
    const asked = live;
    const preparing = this.#prepare(asked);
    preparing.catch(() => {}); // awaited below, once the uploads are over
    const toStore = live.filter((job) => !job.record.blob_id);
    for (const job of live) job.blobId ??= job.record.blob_id;
    const stored = new Set(await this.#store(toStore));
    live = live.filter((job) => (job.record.blob_id || stored.has(job)) && !this.#takenOver(job));
    let prepared: Map<BatchJob, PreparedText>;
    try {
      prepared = await preparing;
    } catch (error) {
      if (asked.length === 1 || !permanent(error)) {
        await this.#each(live, () => Promise.reject(error));
        return;
      }
      // A text the embedder refuses (too long for its model) fails its own job, not the
      // others': each is embedded on its own.
      prepared = new Map();
      live = await this.#each(live, async (job) => {
        for (const [each, made] of await this.#prepare([job])) prepared.set(each, made);
      });
    }
    live = await this.#index(live, prepared);
    for (const job of live) job.indexed = true;
    live = await this.#land(live.filter((job) => !this.#takenOver(job)));
    await this.#complete(live);
  }

  /** What `prepare` makes of the jobs' texts (their vectors, terms and digests), by job. */
  async #prepare(jobs: BatchJob[]): Promise<Map<BatchJob, PreparedText>> {
    const made = await this.#deps.pipeline.prepare(
      jobs.map((job) => ({ ...job.key, text: job.text!, attributes: job.attributes })),
      { timeoutMs: this.#timeoutMs },
    );
    return new Map(jobs.map((job, i) => [job, made[i]]));
  }

  /**
   * Lands the jobs' memories once indexed (see `landing.ts`); returns those that stayed. When
   * landing fails, each job gives up its attempt (indexing again is harmless), counted whatever
   * the error: a job whose memory cannot land fails after its attempts, and its memory is
   * withdrawn (`MemoryLanding.failed`).
   */
  async #land(jobs: BatchJob[]): Promise<BatchJob[]> {
    const { landing } = this.#deps;
    if (!landing) return jobs;
    let gone: (string | undefined)[];
    try {
      gone = await landing.indexed(jobs.map(memoryOf));
    } catch (error) {
      return await this.#each(jobs, () => Promise.reject(error));
    }
    return await this.#refuse(jobs, gone);
  }

  /** Encrypts (unless a ciphertext was kept), keeps new ciphertexts, uploads: sets `blobId`. */
  async #store(jobs: BatchJob[]): Promise<BatchJob[]> {
    const { queue, pipeline } = this.#deps;
    // Only an earlier lease (an attempt, counted or not, or one a crash cut short) can have kept one.
    const again = jobs.filter((job) => suspect(job.record, 1) || job.record.error !== undefined);
    const kept = again.length > 0 ? await queue.ciphertexts(again.map((j) => j.record.job_id)) : [];
    again.forEach((job, i) => job.ciphertext = kept[i] ?? undefined);
    const fresh = await this.#each(jobs.filter((job) => !job.ciphertext), async (job) => {
      job.ciphertext = await pipeline.encrypt(
        { ...job.key, text: job.text! },
        this.#callOptions(job),
      );
    });
    const saved = await queue.saveCiphertexts(
      fresh.map((job) => ({ record: job.record, ciphertext: job.ciphertext! })),
    );
    const lost = new Set(fresh.filter((_, i) => !saved[i]));
    for (const job of lost) this.#takenOver(job, new LeaseLost(job.record.job_id));
    const ready = jobs.filter((job) => job.ciphertext && !lost.has(job) && !job.over);
    return await this.#each(ready, async (job) => {
      job.blobId = await pipeline.store(
        { ...job.key, ciphertext: job.ciphertext!, attributes: job.attributes },
        this.#callOptions(job),
      );
    });
  }

  /**
   * Indexes the jobs' memories in one step, from what `prepare` made of their texts; when one
   * memory is refused, each on its own.
   */
  async #index(jobs: BatchJob[], prepared: Map<BatchJob, PreparedText>): Promise<BatchJob[]> {
    const { pipeline } = this.#deps;
    const memory = (job: BatchJob) => ({
      ...job.key,
      blobId: job.blobId!,
      prepared: prepared.get(job)!,
    });
    try {
      await pipeline.indexMany(jobs.map(memory), { timeoutMs: this.#timeoutMs });
      return jobs;
    } catch (error) {
      if (jobs.length === 1 || !permanent(error)) {
        return await this.#each(jobs, () => Promise.reject(error));
      }
      return await this.#each(jobs, (job) => pipeline.index(memory(job), this.#callOptions(job)));
    }
  }

  /** Marks the jobs done, their memories' texts kept first. */
  async #complete(jobs: BatchJob[]): Promise<void> {
    const { queue, logger, observe } = this.#deps;
    // Kept before the jobs are marked done: whoever sees a job done (a commit is visible before
    // its writer hears of it) finds its text kept.
    for (const job of jobs) this.#deps.reader?.keep(job.key.owner, job.blobId!, job.text!);
    const completed = await queue.completeMany(jobs.map((job) => ({
      record: job.record,
      patch: { blob_id: job.blobId, memory_id: job.record.job_id },
    })));
    for (const job of this.#held(jobs, completed)) {
      job.over = true;
      observe?.jobEnded("done", this.#acceptedAt(job));
      logger.debug("job done", { job_id: job.record.job_id, attempts: job.record.attempts });
    }
  }

  /** Runs `stage` for each job; those it throws for give up their attempt. Returns the rest. */
  async #each(jobs: BatchJob[], stage: (job: BatchJob) => Promise<void>): Promise<BatchJob[]> {
    const failed = new Map<BatchJob, unknown>();
    await Promise.all(jobs.map((job) => stage(job).catch((error) => failed.set(job, error))));
    await Promise.all([...failed].map(([job, error]) => this.#giveUpAttempt(job, error)));
    return jobs.filter((job) => !failed.has(job));
  }

  /** Fails each job `reasons` gives a refusal (in the jobs' order); returns the others. */
  #refuse(jobs: BatchJob[], reasons: (string | undefined)[]): Promise<BatchJob[]> {
    const why = new Map(jobs.map((job, i) => [job, reasons[i]]));
    return this.#each(jobs, (job) => {
      const refusal = why.get(job);
      return refusal ? Promise.reject(new SvcError("conflict", refusal)) : Promise.resolve();
    });
  }

  /** Keeps the jobs still held; those a batch change found lost stop. */
  #held(jobs: BatchJob[], applied: boolean[]): BatchJob[] {
    return jobs.filter((job, i) =>
      applied[i] || !this.#takenOver(job, new LeaseLost(job.record.job_id))
    );
  }

  /**
   * Retries the job later, or fails it (see `afterFailure`). A blob already uploaded is
   * recorded first, so the next attempt does not upload it again. A job failed for a reason other
   * than its input's or client's (its attempts ran out) is dead-lettered: logged and counted.
   */
  async #giveUpAttempt(job: BatchJob, error: unknown): Promise<void> {
    const { queue, logger, observe } = this.#deps;
    if (this.#takenOver(job, error)) return;
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
      const age = Date.now() - this.#acceptedAt(job);
      const stage = job.indexed ? "land" : "store";
      const next = afterFailure(error, record.attempts, queue.maxAttempts, age, stage);
      if (!next.fail) {
        await queue.retry(record, message, next.delayMs, { counted: next.counted });
        observe?.jobRetried();
        return;
      }
      await queue.fail(record, message);
      observe?.jobEnded("failed", this.#acceptedAt(job));
      if (!permanent(error)) {
        observe?.jobDeadLettered?.();
        logger.warn("job dead-lettered", {
          job_id: record.job_id,
          attempts: record.attempts,
          error: message,
        });
      }
      await this.#deps.landing?.failed([memoryOf(job)]).catch((cause) => {
        logger.warn("cannot release what a failed job held", {
          job_id: record.job_id,
          error: cause,
        });
      });
    } catch (cause) {
      if (cause instanceof LeaseLost) return;
      // Not recorded (the queue's store is down): the job is tried again once its lease ends.
      observe?.jobRetried();
      throw cause;
    }
  }

  /** Whether `error` (or the job's state) says the job was taken over: then it just stops. */
  #takenOver(job: BatchJob, error?: unknown): boolean {
    if (!(error instanceof LeaseLost) && !job.lost.signal.aborted) return false;
    job.over = true;
    this.#deps.logger.warn("job taken over by another worker; this attempt stops", {
      job_id: job.record.job_id,
      attempts: job.record.attempts,
    });
    return true;
  }

  #acceptedAt(job: BatchJob): number {
    return Date.parse(job.record.created_at);
  }

  #callOptions(job: BatchJob): StepOptions {
    return { timeoutMs: this.#timeoutMs, signal: job.lost.signal };
  }
}
