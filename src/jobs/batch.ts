/**
 * A batch of remember jobs, run through the remember pipeline (encrypt, store, then index) with a
 * time limit on every backend call. Each stage runs once per batch: one lease commit, the texts
 * and saved ciphertexts read together, the encryptions and blob uploads run concurrently, one
 * commit keeps the new ciphertexts, one embedding call (while the blobs upload) and one index
 * upsert write every memory, and one commit completes the jobs.
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
import { decodePayload, type MemoryAttributes } from "../pipeline/attributes.ts";
import type { MemoryKey, PreparedText, StepOptions } from "../pipeline/remember.ts";
import { textHeldBy } from "../pipeline/remember.ts";
import { type JobRecord, LeaseLost } from "./job_queue.ts";
import { MemoryTextClaims } from "./text_claims.ts";
import { afterFailure, jobError, permanent, suspect } from "./attempts.ts";
import type { IndexedMemory, WorkerDependencies } from "./worker.ts";

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

/**
 * What runs a worker's batches: leases the jobs of `jobIds` it can have to `workerId` and runs
 * them together; resolves once they are over.
 */
export function batchRunner(
  deps: WorkerDependencies,
  workerId: string,
): (jobIds: string[]) => Promise<void> {
  const timeoutMs = deps.callTimeoutMs ?? 30_000;
  const { queue, pipeline, logger, observe } = deps;
  const acceptedAt = (job: Job) => Date.parse(job.record.created_at);
  const textClaims = deps.textClaims ?? new MemoryTextClaims();

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
      if (cause instanceof LeaseLost) return;
      // Not recorded (the queue's store is down): the job is tried again once its lease ends.
      observe?.jobRetried();
      throw cause;
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
        { ...job.key, ciphertext: job.ciphertext!, attributes: job.attributes },
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
          // Held now: a text stored before the claim (its job released it since) is indexed,
          // maybe by another relayer whose notice is still on its way.
          found = await pipeline.duplicates(texts, { fresh: true });
          if (claims().every(({ place }) => ours.has(place))) return;
        } else {
          // Holding none while it waits, no two batches each hold what the other waits for.
          await textClaims.release([...ours.values()].map((job) => job.record.job_id));
          for (const job of ours.values()) job.claimed = undefined;
          ours.clear();
          await textClaims.released(asked);
          found = await pipeline.duplicates(texts, { fresh: true });
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
    // Kept before the jobs are marked done: whoever sees a job done (a commit is visible before
    // its writer hears of it) finds its text kept.
    for (const job of live) deps.keepText?.(job.key.owner, job.blobId!, job.text!);
    const completed = await queue.completeMany(live.map((job) => ({
      record: job.record,
      patch: { blob_id: job.blobId, memory_id: job.record.job_id },
    })));
    for (const job of held(live, completed)) {
      job.over = true;
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

  async function runGroup(jobIds: string[]): Promise<void> {
    const leased = await queue.leaseMany(jobIds, workerId);
    const records = leased.filter((record): record is JobRecord => record !== null);
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

  return runGroup;
}
