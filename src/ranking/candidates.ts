/**
 * Recall's candidates: the memories nearest to the query's vector and the best BM25 matches of
 * its terms are pooled and cut to the best by fused score; then the memories remembered right
 * after the best third of the pool join it (in a conversation an answer follows its question).
 * The vector search is the caller's: it passes the nearest hits and a `lookup` for the hits of
 * given ids, so the pooling itself works on plain data.
 *
 * @example
 * ```ts
 * const size = poolSize(limit);
 * const candidates = await gatherCandidates(size, {
 *   nearest: await vectors.search(owner, namespace, vector, size),
 *   lexicalIds: matches.hits.map((hit) => hit.id),
 *   lexical: relativeLexical(matches),
 *   neighbours: recallNeighbours(index),
 *   lookup: (ids) => vectors.search(owner, namespace, vector, ids.length, { ids }),
 * });
 * ```
 * @module
 */
import type { VectorHit } from "../backends/types.ts";
import { fusedScore, type FusionWeights, type MemoryKind } from "./fusion.ts";

/** How many memories recall pools for `limit` results: three times as many, at least 30. */
export function poolSize(limit: number): number {
  return Math.max(limit * 3, 30);
}

export interface CandidateSources {
  /** The memories nearest to the query's vector, nearest first. */
  nearest: VectorHit[];
  /** The memories that best match the query's terms, best first. */
  lexicalIds: string[];
  /** A memory's BM25 score relative to the query's best match, in [0, 1]. */
  lexical(id: string): number;
  /** A memory's kind, whose fusion weights apply (a turn unless given). */
  kind?(id: string): MemoryKind;
  /** The embedder's fusion weights (GloVe's unless given). */
  weights?: FusionWeights;
  /** The memories remembered next to a memory (see `recallNeighbours`). */
  neighbours(id: string): string[];
  /** The hits of the memories `ids` (those that exist), as the vector search finds them. */
  lookup(ids: string[]): Promise<VectorHit[]>;
}

/**
 * The pool of `size` memories best by fused score (without re-ranking, with the weights of each
 * memory's kind), then the followers of its best third that are not in it; each memory once. Hits
 * missing from `nearest` are looked up, at most twice: the lexical matches, then the followers.
 */
export async function gatherCandidates(
  size: number,
  sources: CandidateSources,
): Promise<VectorHit[]> {
  const { lexical, kind, weights, neighbours, lookup } = sources;
  const hits = new Map(sources.nearest.map((hit) => [hit.id, hit]));
  const withHits = async (ids: string[]) => {
    const missing = ids.filter((id) => !hits.has(id));
    const found = missing.length ? await lookup(missing) : [];
    for (const hit of found) hits.set(hit.id, hit);
    return ids.flatMap((id) => hits.get(id) ?? []);
  };
  await withHits(sources.lexicalIds);
  const pooled = [...hits.values()]
    .map((hit) => ({
      hit,
      score: fusedScore(
        hit.distance,
        lexical(hit.id),
        undefined,
        kind?.(hit.id),
        undefined,
        weights,
      ),
    }))
    // Equal scores by id: the pool must not depend on the order the hits came in.
    .sort((a, b) => b.score - a.score || (a.hit.id < b.hit.id ? -1 : 1))
    .slice(0, size)
    .map(({ hit }) => hit);
  // Ids are time-ordered: a greater id was remembered later.
  const followers = pooled.slice(0, size / 3).flatMap((hit) =>
    neighbours(hit.id).filter((id) => id > hit.id)
  );
  return [...new Set([...pooled, ...await withHits(followers)])];
}
