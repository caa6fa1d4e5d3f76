/**
 * Import: memories given as lines (an export's, or a foreign format's turned into them) are
 * queued as remember jobs, skipping the texts the namespace already holds (the lifecycle's
 * duplicate rule: the same text after normalising case and white space, in the same thread or
 * in none) and repeats within the lines themselves, so that importing the same lines again
 * adds nothing. Callers pass values that are already validated.
 */
import type { MemoryService, RememberItem } from "./memories.ts";

/** Lines one import request takes at most. */
export const MAX_IMPORT_LINES = 500;

/** Jobs accepted at once (a commit of the job queue checks at most 100 keys). */
const ACCEPT_BATCH = 64;

/** A line of an import that was not imported, and why. */
export interface ImportFailure {
  /** Its line number in the request body, from 1. */
  line: number;
  /** Why, as a sentence. */
  error: string;
}

/** What an import request did. */
export interface ImportSummary {
  /** Lines queued as new memories. */
  imported: number;
  /** Lines whose text the namespace already held (or an earlier line of the same import). */
  duplicates: number;
  /** Lines that could not be imported, with their numbers. */
  failed: ImportFailure[];
  /** The remember jobs of the imported lines, in line order. */
  job_ids: string[];
}

/** A queued remember job. */
type AcceptedJob = Awaited<ReturnType<MemoryService["remember"]>>[number];

/** The same normalisation as the duplicate rule's digest (`TermHasher.digest`). */
function normal(text: string): string {
  return text.normalize("NFC").toLowerCase().trim().replace(/\s+/g, " ");
}

/**
 * Queues `items` as remember jobs, but those already in their namespace and repeats among
 * them; resolves once the jobs are durably queued, with the jobs and how many were skipped. An
 * import with a line for an operator-blind namespace is refused whole, before any is queued.
 */
export async function importItems(
  service: MemoryService,
  owner: string,
  items: RememberItem[],
): Promise<{ jobs: AcceptedJob[]; duplicates: number }> {
  const seen = new Set<string>();
  const distinct = items.filter(({ namespace, text, attributes }) => {
    const key = JSON.stringify([namespace, attributes?.thread ?? null, normal(text)]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  await service.refuseBlind(owner, [...new Set(distinct.map(({ namespace }) => namespace))]);
  const jobs: AcceptedJob[] = [];
  for (let i = 0; i < distinct.length; i += ACCEPT_BATCH) {
    const accepted = await service.accept(owner, distinct.slice(i, i + ACCEPT_BATCH));
    for (const { job } of accepted) if (job) jobs.push(job);
  }
  return { jobs, duplicates: items.length - jobs.length };
}
