/**
 * Recall's final order: each candidate's fused score (with the re-ranker's score when recall has
 * one, weighted for a turn of a conversation or a standalone fact), lifted by the best score among its neighbours in its thread, best first; equal scores in
 * the order of the memories' ids, so the order never depends on the order candidates came in.
 * Each ranked memory keeps the parts of its score, for `explain`.
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
import { fusedScore, type FusionWeights, type MemoryKind, similarityOf } from "./fusion.ts";
import { liftedScore } from "./neighbours.ts";

export interface RankingSignals {
  /** A memory's BM25 score relative to the query's best match, in [0, 1]. */
  lexical(id: string): number;
  /** The memories remembered next to a memory in its thread (see `recallNeighbours`). */
  neighbours(id: string): string[];
  /**
   * When recall has a re-ranker, each candidate whose text was read, by memory id, with the
   * re-ranker's score in [0, 1] (`undefined` for a kind of memory the weights give it no part
   * in); a candidate whose text could not be read is left out.
   */
  reranked?: Map<string, number | undefined>;
  /** Whether a memory has a thread (a turn of a conversation) or not (a standalone fact). */
  kind?(id: string): MemoryKind;
  /**
   * Whether a memory holds the kind of answer the question asks for (1 or 0); `undefined`
   * when the question asks for no kind or the memory's text was not read.
   */
  answer?(id: string): number | undefined;
  /** The fusion weights for the embedder's vectors (`Embedder.ranking`); GloVe's unless given. */
  weights?: FusionWeights;
}

/** What a memory's final score is made of, each in [0, 1]. */
export interface ScoreParts {
  /** The cosine similarity of its vector to the query's (0 for opposite or unrelated). */
  vector: number;
  /** Its BM25 score relative to the query's best match (0 when it shares no term). */
  lexical: number;
  /** The re-ranker's score, when recall has a re-ranker. */
  rerank?: number;
  /** 1 when it holds the kind of answer the question asks for, 0 when not (see `answer`). */
  answer?: number;
  /** The weighted mean of the above, with the weights of the memory's kind (`fusedScore`). */
  fused: number;
  /** The best fused score among its neighbours in its thread (0 without any). */
  neighbour: number;
  /** The neighbour that score is of. */
  neighbourId?: string;
  /** Whom the question was asked about when this score was given ("my boss" → "Fergus"). */
  askedAbout?: string;
}

export interface RankedHit {
  hit: VectorHit;
  /** The final score in [0, 1]. */
  score: number;
  /** What `score` is made of. */
  parts: ScoreParts;
}

/**
 * The score below which recall leaves a memory out unless asked otherwise (`min_score`): chosen
 * on both retrieval benchmarks (bench/retrieval.ts), see BENCHMARKS.md.
 */
export const DEFAULT_MIN_SCORE = 0.2;

/** The largest group of nearest memories a margin is taken for, and how many after it. */
const MARGIN_GROUP = 10;
const MARGIN_OVER = 19;

/**
 * How far a question's nearest memories stand out from the ones after them (`margin`): for the
 * nearest one, two, … `MARGIN_GROUP`, their mean cosine similarity minus that of the next
 * `MARGIN_OVER`, the largest of these (the nearest's own similarity when it is alone). A question
 * that no memory answers is about as close to its nearest memories as to the ones after them; a
 * paraphrase of a fact stands out, and so do several memories on what it asks. `spread` is how
 * far apart the similarities of those memories lie: where they lie closer than a threshold, no
 * margin can reach it, and says nothing (many memories as near as one another).
 */
export function nearestShape(nearest: VectorHit[]): { margin: number; spread: number } {
  const similarities = nearest.map((hit) => similarityOf(hit.distance)).sort((a, b) => b - a)
    .slice(0, MARGIN_GROUP + MARGIN_OVER);
  if (similarities.length < 2) {
    const alone = similarities[0] ?? 0;
    return { margin: alone, spread: alone };
  }
  const mean = (values: number[]) => values.reduce((sum, s) => sum + s, 0) / values.length;
  let margin = -Infinity;
  for (let group = 1; group <= MARGIN_GROUP && group < similarities.length; group++) {
    const next = similarities.slice(group, group + MARGIN_OVER);
    margin = Math.max(margin, mean(similarities.slice(0, group)) - mean(next));
  }
  return { margin, spread: similarities[0] - similarities.at(-1)! };
}

/**
 * Whether recall abstains at `threshold` over nearest memories of this shape: they stand out by
 * less than it, though spread at least as far (0: never). Recall asks it of a question whose best
 * memory is a fact, at its embedder's `ranking.abstainBelow`, unless the caller sets `min_score`.
 * Turns of a conversation are close to each other, so recall over them never abstains. None of
 * svc's embedders abstains yet: on the fact set's halves, GloVe could abstain at 0.11 and
 * all-MiniLM-L6-v2 at 0.10, but on bench:load's facts (many people's facts of the same kinds)
 * GloVe's 0.11 leaves 23 in 200 answerable questions empty (BENCHMARKS.md, "Abstention").
 */
export function abstainsAt(shape: { margin: number; spread: number }, threshold: number): boolean {
  return shape.margin < threshold && shape.spread >= threshold;
}

const byScoreThenId = (a: RankedHit, b: RankedHit) =>
  b.score - a.score || (a.hit.id < b.hit.id ? -1 : a.hit.id > b.hit.id ? 1 : 0);

/**
 * The candidates ranked, best first, at most `limit`, none scoring below `minScore` (default
 * 0). A neighbour counts with its own fused score when it is a candidate, and 0 otherwise.
 */
export function rankCandidates(
  candidates: VectorHit[],
  limit: number,
  signals: RankingSignals,
  minScore = 0,
): RankedHit[] {
  const { lexical, neighbours, reranked, kind = () => "turn", answer = () => undefined } = signals;
  const { weights } = signals;
  const parts = new Map<string, ScoreParts>();
  for (const hit of candidates) {
    if (reranked && !reranked.has(hit.id)) continue;
    const vector = similarityOf(hit.distance);
    const rerank = reranked?.get(hit.id);
    const answered = answer(hit.id);
    const own: ScoreParts = {
      vector,
      lexical: lexical(hit.id),
      fused: fusedScore(hit.distance, lexical(hit.id), rerank, kind(hit.id), answered, weights),
      neighbour: 0,
    };
    if (rerank !== undefined) own.rerank = rerank;
    if (answered !== undefined && kind(hit.id) === "fact") own.answer = answered;
    parts.set(hit.id, own);
  }
  const ranked: RankedHit[] = [];
  for (const hit of candidates) {
    const own = parts.get(hit.id);
    if (!own) continue;
    const near = neighbours(hit.id);
    for (const id of near) {
      const fused = parts.get(id)?.fused ?? 0;
      if (fused > own.neighbour) {
        own.neighbour = fused;
        own.neighbourId = id;
      }
    }
    const score = liftedScore(own.fused, near.length ? [own.neighbour] : []);
    if (score >= minScore) ranked.push({ hit, score, parts: own });
  }
  return ranked.sort(byScoreThenId).slice(0, limit);
}

/**
 * Rankings of one recall's questions as one: each memory with its best score (and that score's
 * parts), best first, at most `limit`.
 */
export function mergeRanked(rankings: RankedHit[][], limit: number): RankedHit[] {
  const best = new Map<string, RankedHit>();
  for (const ranked of rankings) {
    for (const hit of ranked) {
      if ((best.get(hit.hit.id)?.score ?? -Infinity) < hit.score) best.set(hit.hit.id, hit);
    }
  }
  return [...best.values()].sort(byScoreThenId).slice(0, limit);
}
