/**
 * Neighbours in recall: in a conversation an answer follows its question and often shares none
 * of its words, so a memory is ranked together with the memories remembered next to it in the
 * same thread (a conversation or session the client named). A memory's neighbours are the
 * memories of its thread remembered up to two places before or after it; it gains a share of
 * the best neighbour's score. A memory without a thread (an independent fact) has none.
 *
 * @example
 * ```ts
 * const neighbours = recallNeighbours(index);
 * liftedScore(0.5, neighbours(id).map((other) => scores.get(other) ?? 0));
 * ```
 * @module
 */
import type { NamespaceIndex } from "./lexical_index.ts";

const NEIGHBOUR_SPAN = 2;
/** The share of the best neighbour's score a memory gains. */
const NEIGHBOUR_WEIGHT = 0.6;

/** The neighbours of a memory in a namespace's index, in remember order. */
export function recallNeighbours(index: NamespaceIndex): (id: string) => string[] {
  return (id) => index.neighbours(id, NEIGHBOUR_SPAN);
}

/**
 * A score with the weighted best of its neighbours' scores (a neighbour that is no candidate
 * counts 0), rescaled to [0, 1]; the score itself for a memory without neighbours.
 */
export function liftedScore(score: number, neighbourScores: number[]): number {
  if (neighbourScores.length === 0) return score;
  return (score + NEIGHBOUR_WEIGHT * Math.max(0, ...neighbourScores)) / (1 + NEIGHBOUR_WEIGHT);
}
