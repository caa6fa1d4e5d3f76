/**
 * The texts of a batch's jobs (see `batch.ts`): which are memories already, and the claims of
 * the others for the jobs storing them (see `TextClaims`). A job that would store a text another
 * job has claimed waits for that one to end, then looks again: it finds the text a memory,
 * unless the other job failed to store it. An update to a text another memory holds fails.
 */
import type { MemoryKey, MemoryText, RememberPipeline, TextPlace } from "../pipeline/remember.ts";
import { textHeldBy } from "../pipeline/remember.ts";
import type { BatchJob } from "./batch_job.ts";
import type { TextClaims } from "./text_claims.ts";

/** A job whose text is a memory already: it stores nothing, done as a duplicate of `original`. */
export interface DuplicateJob {
  job: BatchJob;
  original: string;
}

/** What finding and claiming texts takes. */
export interface BatchTextsDependencies {
  pipeline: Pick<RememberPipeline, "duplicates">;
  textClaims: TextClaims;
}

/** The texts of one batch's jobs, as `find` and then `claim` found them. */
export class BatchTexts {
  readonly #deps: BatchTextsDependencies;
  readonly #jobs: BatchJob[];
  readonly #texts: (MemoryKey & MemoryText)[];
  /** What `duplicates` last found of each job's text, in the jobs' order. */
  #found: TextPlace[];
  /** The texts the batch holds, each by the job that claimed it. */
  readonly #ours = new Map<string, BatchJob>();

  private constructor(
    deps: BatchTextsDependencies,
    jobs: BatchJob[],
    texts: (MemoryKey & MemoryText)[],
    found: TextPlace[],
  ) {
    this.#deps = deps;
    this.#jobs = jobs;
    this.#texts = texts;
    this.#found = found;
  }

  /** Looks which of the jobs' texts are memories already (nothing claimed yet). */
  static async find(deps: BatchTextsDependencies, jobs: BatchJob[]): Promise<BatchTexts> {
    const texts = jobs.map((job) => ({ ...job.key, text: job.text!, attributes: job.attributes }));
    return new BatchTexts(deps, jobs, texts, await deps.pipeline.duplicates(texts));
  }

  /**
   * Claims the texts the batch would store, all or none, then looks again; until every text it
   * would store is its own. Throws when the claims' store fails.
   */
  async claim(): Promise<void> {
    const { pipeline, textClaims } = this.#deps;
    for (;;) {
      const wanted = this.#claims();
      const asked = wanted.map(({ place, job }) => ({ place, job: job.record.job_id }));
      if (await textClaims.claim(asked, Date.now())) {
        for (const { place, job } of wanted) {
          this.#ours.set(place, job);
          job.claimed = place;
        }
        // Held now: a text stored before the claim (its job released it since) is indexed,
        // maybe by another relayer whose notice is still on its way.
        this.#found = await pipeline.duplicates(this.#texts, { fresh: true });
        if (this.#claims().every(({ place }) => this.#ours.has(place))) return;
      } else {
        // Holding none while it waits, no two batches each hold what the other waits for.
        await textClaims.release([...this.#ours.values()].map((job) => job.record.job_id));
        for (const job of this.#ours.values()) job.claimed = undefined;
        this.#ours.clear();
        await textClaims.released(asked);
        this.#found = await pipeline.duplicates(this.#texts, { fresh: true });
      }
    }
  }

  /** The jobs whose text is a memory already, with that memory. */
  duplicates(): DuplicateJob[] {
    return this.#jobs.flatMap((job, i) => {
      const original = this.#original(job, i);
      return original ? [{ job, original }] : [];
    });
  }

  /** The jobs that store their text. */
  toStore(): BatchJob[] {
    return this.#jobs.filter((job, i) => this.#original(job, i) === undefined);
  }

  /** For each of `jobs` (of `toStore`), why it fails, or `undefined`. */
  clashes(jobs: BatchJob[]): (string | undefined)[] {
    // An update to a text another memory holds would make two of it: it fails.
    return jobs.map((job) => {
      const { original } = this.#found[this.#jobs.indexOf(job)];
      const { replaces } = job.attributes ?? {};
      const other = original !== undefined && original !== replaces &&
        original !== job.record.job_id;
      return replaces !== undefined && other ? textHeldBy(original) : undefined;
    });
  }

  /** The memory the `i`th job's text duplicates, if it is done as its duplicate. */
  #original(job: BatchJob, i: number): string | undefined {
    // A retried job may find its own memory, indexed before a crash: it goes on.
    const { original } = this.#found[i];
    return job.attributes?.replaces === undefined && original !== job.record.job_id
      ? original
      : undefined;
  }

  /** The texts the batch would store, each claimed for the job holding it, else its first. */
  #claims(): { place: string; job: BatchJob }[] {
    const byPlace = new Map<string, BatchJob>();
    this.#jobs.forEach((job, i) => {
      const { place } = this.#found[i];
      if (this.#original(job, i) === undefined && !byPlace.has(place)) {
        byPlace.set(place, this.#ours.get(place) ?? job);
      }
    });
    return [...byPlace].map(([place, job]) => ({ place, job }));
  }
}
