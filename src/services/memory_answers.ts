/**
 * What the memory use-cases of `memories.ts` answer: recall's memories (with or without their
 * text), a manual remember's memory, an unknown job, restore's summary.
 */
import type { RememberedBy } from "../pipeline/attributes.ts";
import type { RecallExplanation } from "./recall_explanation.ts";
import type { LackedAnswer } from "./lacked_answer.ts";

/** The timed stages of a recall: embed the query, search vectors, lexical, read, re-rank. */
export type RecallStage = "embed" | "search" | "lexical" | "read" | "rerank";

/** A memory recall found, decrypted. */
export interface RecallResult {
  /** The memory's id. */
  id: string;
  /** The blob holding the memory's ciphertext. */
  blob_id: string;
  /** The memory's text. */
  text: string;
  /** The memory's tags. */
  tags: string[];
  /** Cosine distance of the memory's vector to the query's: 0 is identical, 2 is opposite. */
  distance: number;
  /** The final ranking score, in [0, 1]. */
  score: number;
  /** When the memory was first remembered (ISO 8601): its first version's time, as in get. */
  created_at: string;
  /** When the memory expires (ISO 8601), as in get; `null` when it does not. */
  expires_at: string | null;
  /** Which key stored the memory, and when; `null` for memories stored before it was kept. */
  remembered_by: RememberedBy | null;
  /** With `explain`: what `score` is made of. */
  explain?: RecallExplanation;
}

/** What recall answers: the memories found, best first. */
export type RecallResults = {
  /** The memories, best first; a memory whose blob cannot be read is left out. */
  results: RecallResult[];
  /** How many `results` there are. */
  total: number;
  /**
   * With `explain`: the margin (`margin`) a fact had to reach, as the best memory, for any
   * answer, unless the similarities spread less (0: never abstains).
   */
  abstain_below?: number;
  /**
   * With `explain`: how far the nearest memories stand out from the next ones (`nearestShape`).
   */
  margin?: number;
  /**
   * With `explain`: how far apart the nearest memories' similarities lie; below `abstain_below`,
   * recall does not abstain.
   */
  spread?: number;
  /**
   * With `explain`, when recall found nothing because no memory about whom the question asks
   * holds the kind of answer it asks for: whom, and the kind (`"time"`, `"number"` or `"colour"`).
   */
  no_answer?: LackedAnswer;
};

/** A memory manual recall found, without its text. */
export interface ManualHit {
  /** The memory's id. */
  id: string;
  /** The blob holding the memory's ciphertext. */
  blob_id: string;
  /** Cosine distance of the memory's vector to the query vector: 0 is identical, 2 is opposite. */
  distance: number;
  /** When the memory was remembered (ISO 8601). */
  created_at: string;
}

/** What manual recall answers: the nearest memories, nearest first. */
export interface ManualRecallResults {
  /** The memories, nearest first. */
  results: ManualHit[];
  /** How many `results` there are. */
  total: number;
}

/** A client-encrypted memory once manual remember has stored and indexed it. */
export interface ManualMemory {
  /** The memory's id. */
  id: string;
  /** The blob holding the ciphertext. */
  blob_id: string;
  /** The owner's address. */
  owner: string;
  /** The memory's namespace. */
  namespace: string;
}

/** A job id that names no job of the caller's (unknown, expired or another owner's). */
export interface UnknownJob {
  /** The id as asked for. */
  job_id: string;
  /** Always `"not_found"`. */
  status: "not_found";
}

/** What restore did in a namespace. */
export interface RestoreSummary {
  /** Memories indexed again. */
  restored: number;
  /** Blobs already in the index or unreadable (not decrypted, or a sealed vector not opened). */
  skipped: number;
  /** The namespace's blobs. */
  total: number;
  /** Blobs missing from the index that this call left for the next (past its limit). */
  remaining: number;
  /** Whether it left any (`remaining` above 0; the reference system's name for it). */
  truncated: boolean;
  /** The namespace restored. */
  namespace: string;
  /** The owner's address. */
  owner: string;
}
