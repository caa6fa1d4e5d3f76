/**
 * Recall's final order: each candidate's fused score (with the re-ranker's score when recall has
 * one), lifted by the best score among its neighbours, best first.
 *
 * @example
 * ```ts
 * const ranked = rankCandidates(candidates, limit, {
 *   lexical: relativeLexical(matches),
 *   neighbours: recallNeighbours(index),
 *   reranked: new Map([[id, 0.8]]),
 * });
 * ```
 * @module
 */
import type { VectorHit } from "../backends/types.ts";
import { fusedScore } from "./fusion.ts";
import { liftedScore } from "./neighbours.ts";

export interface RankingSignals {
  /** A memory's BM25 score relative to the query's best match, in [0, 1]. */
  lexical(id: string): number;
  /** The memories remembered next to a memory (see `recallNeighbours`). */
  neighbours(id: string): string[];
  /**
   * The re-ranker's scores by memory id, in [0, 1], when recall has a re-ranker; a candidate
   * without one (its text could not be read) is left out.
   */
  reranked?: Map<string, number>;
}

export interface RankedHit {
  hit: VectorHit;
  /** The final score in [0, 1]. */
  score: number;
}

/**
 * The best `limit` candidates, best first. A neighbour counts with its own fused score when it
 * is a candidate, and 0 otherwise.
 */
export function rankCandidates(
  candidates: VectorHit[],
  limit: number,
  signals: RankingSignals,
): RankedHit[] {
  const { lexical, neighbours, reranked } = signals;
  const scores = new Map<string, number>();
  for (const hit of candidates) {
    if (!reranked) scores.set(hit.id, fusedScore(hit.distance, lexical(hit.id)));
    else if (reranked.has(hit.id)) {
      scores.set(hit.id, fusedScore(hit.distance, lexical(hit.id), reranked.get(hit.id)));
    }
  }
  return candidates.filter((hit) => scores.has(hit.id)).map((hit) => ({
    hit,
    score: liftedScore(scores.get(hit.id)!, neighbours(hit.id).map((id) => scores.get(id) ?? 0)),
  })).sort((a, b) => b.score - a.score).slice(0, limit);
}
