/**
 * Recall's fused score: a memory's cosine similarity to the query, its BM25 score relative to
 * the query's best match, and, when recall has a re-ranker, the re-ranker's score, as one number
 * in [0, 1]. The weights are against the cosine similarity's 1, tuned on LoCoMo's tuning split
 * (bench/retrieval.ts).
 *
 * @example
 * ```ts
 * fusedScore(0.2, 0.5); // (0.8 + 0.5) / 2 = 0.65
 * fusedScore(0.2, 0.5, 1); // (0.8 + 0.5 + 2 × 1) / 4 = 0.825
 * ```
 * @module
 */
import type { LexicalMatches } from "./lexical_index.ts";

/** Weight of the BM25 score relative to the query's best. */
const LEXICAL_WEIGHT = 1;
/** Weight of the re-ranker's score (the GloVe embedder's word-level soft match). */
const RERANK_WEIGHT = 2;

/** Similarity in [0, 1] from a cosine distance in [0, 2]. */
export function similarityOf(distance: number): number {
  return Math.min(1, Math.max(0, 1 - distance));
}

/**
 * The weighted mean of the cosine similarity (from `distance`), the relative BM25 score
 * `lexical` and, when given, the re-ranker's score `rerank`, all in [0, 1].
 */
export function fusedScore(distance: number, lexical: number, rerank?: number): number {
  const weights = 1 + LEXICAL_WEIGHT + (rerank === undefined ? 0 : RERANK_WEIGHT);
  return (similarityOf(distance) + LEXICAL_WEIGHT * lexical + RERANK_WEIGHT * (rerank ?? 0)) /
    weights;
}

/**
 * Each memory's BM25 score relative to the query's best match, in [0, 1]; 0 for a memory that
 * shares no term with the query.
 */
export function relativeLexical(matches: LexicalMatches): (id: string) => number {
  const best = matches.hits[0]?.score || 1;
  return (id) => matches.scoreOf(id) / best;
}
