/**
 * What `StoredJobQueue` knows of the jobs it handed to its listener at acceptance: their records
 * as accepted, until leased, and their texts, until first read. Texts are kept up to a budget of
 * characters; past it, a job's text is read from the store, as after a restart.
 */
import type { JobRecord } from "./job_queue.ts";

/** The characters of texts kept for jobs handed over at acceptance. */
const HANDED_CHARS = 8 * 1024 * 1024;

/**
 * The records and texts of jobs handed over at acceptance, each given back once.
 *
 * @example
 * ```ts
 * const handed = new HandedJobs();
 * handed.keep(record, "I'm vegetarian");
 * handed.takeText(record.job_id); // "I'm vegetarian"; undefined the second time
 * ```
 */
export class HandedJobs {
  #jobs = new Map<string, { record?: JobRecord; text?: string }>();
  #chars = 0;
  #records = 0;

  /** Keeps a handed job's record, and its text unless the text would go past the budget. */
  keep(record: JobRecord, text: string): void {
    const kept = this.#chars + text.length <= HANDED_CHARS;
    this.#jobs.set(record.job_id, { record, text: kept ? text : undefined });
    if (kept) this.#chars += text.length;
    this.#records++;
  }

  /** The jobs whose records were not taken yet. */
  get waiting(): number {
    return this.#records;
  }

  /** The job's text as accepted, the first time it is asked for. */
  takeText(jobId: string): string | undefined {
    const text = this.#jobs.get(jobId)?.text;
    if (text === undefined) return undefined;
    this.#forget(jobId, "text");
    this.#chars -= text.length;
    return text;
  }

  /** The job's record as accepted, the first time it is asked for. */
  takeRecord(jobId: string): JobRecord | undefined {
    const record = this.#jobs.get(jobId)?.record;
    if (record) this.#records--;
    this.#forget(jobId, "record");
    return record;
  }

  /** Forgets every job. */
  clear(): void {
    this.#jobs.clear();
    this.#chars = 0;
    this.#records = 0;
  }

  /** Drops a job's record or text; the job too, once neither is left. */
  #forget(jobId: string, part: "record" | "text"): void {
    const handed = this.#jobs.get(jobId);
    if (!handed) return;
    delete handed[part];
    if (handed.record === undefined && handed.text === undefined) this.#jobs.delete(jobId);
  }
}
