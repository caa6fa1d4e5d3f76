/**
 * What `explain: true` gives each recall result: the parts of its score, as the ranking
 * (`src/ranking/rank.ts`) computed them, in the API's names.
 *
 * @example
 * ```ts
 * const [ranked] = rankCandidates(candidates, 1, signals);
 * explanationOf(ranked.parts); // { vector: 0.61, lexical: 1, rerank: 0.8, … }
 * ```
 * @module
 */
import type { ScoreParts } from "../ranking/rank.ts";

/** What a recall result's score is made of (`explain: true`), each part in [0, 1]. */
export interface RecallExplanation {
  /** Cosine similarity of the memory's vector to the query's. */
  vector: number;
  /** Its BM25 score over the query's terms, relative to the best match's. */
  lexical: number;
  /** The re-ranker's score (the GloVe embedder's word-level soft match); `null` without one. */
  rerank: number | null;
  /**
   * For a memory without a thread: 1 when it holds the kind of answer the question asks for
   * (a time for "when", a place for "where", a person for "who", a number for "how much"), 0
   * when not; `null` when the question asks for no kind, for a memory with a thread, or
   * without a re-ranker (whose reading of the texts it shares).
   */
  answer_type: number | null;
  /**
   * The weighted mean of the parts: for a memory with a thread 1 × vector + 1 × lexical
   * (+ 2 × rerank), for one without 1 × vector + 0.25 × lexical (+ 1 × rerank) (+ 1 ×
   * answer_type), over the weights; those are GloVe's, other embedders' may differ
   * (`Embedder.ranking`).
   */
  fused: number;
  /** The best fused score among the memory's neighbours in its thread; 0 without any. */
  neighbour: number;
  /** That neighbour's id; `null` without one. */
  neighbour_id: string | null;
  /**
   * The name the question was asked about when the memory scored this ("my boss" → "Fergus",
   * see `docs/api.md`, People and relations); `null` when it scored this as asked.
   */
  asked_about: string | null;
}

/** A ranked memory's score parts in the API's names. */
export function explanationOf(parts: ScoreParts): RecallExplanation {
  return {
    vector: parts.vector,
    lexical: parts.lexical,
    rerank: parts.rerank ?? null,
    answer_type: parts.answer ?? null,
    fused: parts.fused,
    neighbour: parts.neighbour,
    neighbour_id: parts.neighbourId ?? null,
    asked_about: parts.askedAbout ?? null,
  };
}
