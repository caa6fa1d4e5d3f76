import assert from "node:assert/strict";
import type { VectorHit } from "../backends/types.ts";
import { fusedScore } from "./fusion.ts";
import { rankCandidates } from "./rank.ts";

const hit = (id: string, distance: number): VectorHit => ({
  id,
  blobId: `blob-${id}`,
  distance,
  createdAt: 0,
});

Deno.test("fusedScore and rankCandidates: the weights given replace GloVe's", () => {
  const weights = {
    turn: { lexical: 0.5, rerank: 1, answer: 0 },
    fact: { lexical: 0, rerank: 0, answer: 0.5 },
  };
  // A fact: only the vector and the answer type weigh.
  assert.ok(Math.abs(fusedScore(0.2, 1, 1, "fact", 1, weights) - (0.8 + 0.5) / 1.5) < 1e-12);
  // "near" is nearer by vector; "words" shares the query's words and pleases the re-ranker.
  const candidates = [hit("near", 0.3), hit("words", 0.5)];
  const signals = {
    lexical: (id: string) => (id === "words" ? 1 : 0),
    neighbours: () => [],
    reranked: new Map([["near", 0.2], ["words", 0.9]]),
    kind: () => "fact" as const,
  };
  const ids = (s: typeof signals & { weights?: typeof weights }) =>
    rankCandidates(candidates, 2, s).map((r) => r.hit.id);
  assert.deepEqual(ids(signals), ["words", "near"], "GloVe's weights: words count");
  assert.deepEqual(ids({ ...signals, weights }), ["near", "words"], "the vector alone decides");
});
