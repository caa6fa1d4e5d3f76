/**
 * Recall's fused score: a memory's cosine similarity to the query, its BM25 score relative to
 * the query's best match, and, when recall has a re-ranker, the re-ranker's score, as one number
 * in [0, 1]. The weights are against the cosine similarity's 1 and depend on the kind of
 * memory: a turn of a conversation (a memory with a thread) is asked about in the words it used,
 * so words weigh much (tuned on LoCoMo's tuning split); a standalone fact (no thread) is asked
 * about in other words, so its meaning weighs most, and holding the kind of answer the
 * question asks for (a time for "when", a place for "where") counts (tuned on the fact set's
 * tuning half; see bench/retrieval.ts).
 *
 * @example
 * ```ts
 * fusedScore(0.2, 0.5); // (0.8 + 0.5) / 2 = 0.65
 * fusedScore(0.2, 0.5, 1); // (0.8 + 0.5 + 2 × 1) / 4 = 0.825
 * fusedScore(0.2, 0.5, 1, "fact"); // (0.8 + 0.25 × 0.5 + 1 × 1) / 2.25 ≈ 0.856
 * fusedScore(0.2, 0.5, 1, "fact", 1); // (0.8 + 0.125 + 1 + 1 × 1) / 3.25 = 0.9
 * ```
 * @module
 */
import type { FusionWeights, MemoryKind } from "../backends/types.ts";
import type { LexicalMatches } from "./lexical_index.ts";

export type { FusionWeights, MemoryKind };

/**
 * Weights of the BM25 score relative to the query's best, of the re-ranker's score (the GloVe
 * embedder's word-level soft match) and of holding the kind of answer the question asks for
 * (`answer_types.ts`), by kind of memory: GloVe's, and any embedder's that names none of its own
 * (`Embedder.ranking`).
 */
export const FUSION_WEIGHTS: FusionWeights = {
  turn: { lexical: 1, rerank: 2, answer: 0 },
  fact: { lexical: 0.25, rerank: 1, answer: 1 },
};

/** Similarity in [0, 1] from a cosine distance in [0, 2]. */
export function similarityOf(distance: number): number {
  return Math.min(1, Math.max(0, 1 - distance));
}

/**
 * The weighted mean of the cosine similarity (from `distance`), the relative BM25 score
 * `lexical` and, when given, the re-ranker's score `rerank` and whether the memory holds the
 * kind of answer asked for (`answer`, 1 or 0; not given when the question asks for no kind),
 * all in [0, 1], with the weights of `kind` (a turn of a conversation unless given) from
 * `weights` (GloVe's unless given).
 */
export function fusedScore(
  distance: number,
  lexical: number,
  rerank?: number,
  kind: MemoryKind = "turn",
  answer?: number,
  weights: FusionWeights = FUSION_WEIGHTS,
): number {
  const weight = weights[kind];
  const answerWeight = answer === undefined ? 0 : weight.answer;
  const total = 1 + weight.lexical + (rerank === undefined ? 0 : weight.rerank) + answerWeight;
  return (similarityOf(distance) + weight.lexical * lexical + weight.rerank * (rerank ?? 0) +
    answerWeight * (answer ?? 0)) / total;
}

/**
 * Each memory's BM25 score relative to the query's best match, in [0, 1]; 0 for a memory that
 * shares no term with the query.
 */
export function relativeLexical(matches: LexicalMatches): (id: string) => number {
  const best = matches.hits[0]?.score || 1;
  return (id) => matches.scoreOf(id) / best;
}
