import assert from "node:assert/strict";
import type { VectorHit } from "../backends/types.ts";
import type { LexicalMatches } from "./lexical_index.ts";
import { fusedScore, relativeLexical } from "./fusion.ts";
import { liftedScore } from "./neighbours.ts";
import { rankCandidates } from "./rank.ts";

const close = (actual: number, expected: number, message?: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected} ${message ?? ""}`);

const hit = (id: string, distance: number): VectorHit => ({
  id,
  blobId: `blob-${id}`,
  distance,
  createdAt: 0,
});

Deno.test("fusedScore: cosine similarity, BM25 (weight 1) and the re-ranker (weight 2)", () => {
  close(fusedScore(0.2, 0.5), (0.8 + 0.5) / 2);
  close(fusedScore(0.2, 0.5, 1), (0.8 + 0.5 + 2) / 4);
  close(fusedScore(0.2, 0.5, 0), (0.8 + 0.5) / 4, "a re-ranker's 0 still weighs");
  assert.equal(fusedScore(1.5, 0), 0, "similarity never below 0");
  assert.equal(fusedScore(-0.1, 1, 1), 1, "nor above 1");
});

Deno.test("relativeLexical: BM25 scores relative to the query's best", () => {
  const scores = new Map([["a", 4], ["b", 2], ["c", 1]]);
  const matches: LexicalMatches = {
    hits: [{ id: "a", score: 4 }, { id: "b", score: 2 }],
    scoreOf: (id) => scores.get(id) ?? 0,
    ideal: 5,
  };
  const lexical = relativeLexical(matches);
  assert.deepEqual(["a", "b", "c", "x"].map(lexical), [1, 0.5, 0.25, 0]);
  assert.equal(relativeLexical({ hits: [], scoreOf: () => 0, ideal: 0 })("a"), 0);
});

Deno.test("liftedScore: a share of the best neighbour's score, rescaled", () => {
  close(liftedScore(0.5, [0.9, 0.2]), (0.5 + 0.6 * 0.9) / 1.6);
  close(liftedScore(0.5, [0]), 0.5 / 1.6, "a neighbour that is no candidate counts 0");
  close(liftedScore(0.5, []), 0.5, "no neighbours (no thread): the score itself");
  close(liftedScore(1, [1]), 1);
});

// A question with the query's words, its answer remembered next to it, and two fillers.
const candidates = [hit("q", 0.2), hit("a", 0.7), hit("f", 0.6), hit("g", 0.65)];
const lexical = (id: string) => id === "q" ? 1 : 0;
const neighbours = (id: string) => id === "q" ? ["a"] : id === "a" ? ["q"] : ["x"];

Deno.test("rankCandidates: the answer next to a strong match rises above closer fillers", () => {
  const ranked = rankCandidates(candidates, 3, { lexical, neighbours });
  assert.deepEqual(ranked.map((r) => r.hit.id), ["q", "a", "f"]);
  // Fused: q .9, a .15, f .2; a neighbour that is no candidate ("x") counts 0.
  close(ranked[0].score, (0.9 + 0.6 * 0.15) / 1.6);
  close(ranked[1].score, (0.15 + 0.6 * 0.9) / 1.6);
  close(ranked[2].score, 0.2 / 1.6);
  assert.equal(ranked[1].hit, candidates[1], "the candidate's own hit");
  assert.deepEqual(ranked[1].parts, {
    vector: 0.30000000000000004,
    lexical: 0,
    fused: 0.15000000000000002,
    neighbour: 0.9,
    neighbourId: "q",
  });
  assert.equal(ranked[2].parts.neighbourId, undefined, "x is no candidate");
});

Deno.test("rankCandidates: memories without neighbours keep their fused score", () => {
  const ranked = rankCandidates(candidates, 4, { lexical, neighbours: () => [] });
  assert.deepEqual(ranked.map((r) => r.hit.id), ["q", "f", "g", "a"]);
  close(ranked[0].score, 0.9);
  close(ranked[3].score, 0.15);
});

Deno.test("fusedScore: a standalone fact weighs its words less than a turn of a conversation", () => {
  close(fusedScore(0.2, 0.5, 1, "fact"), (0.8 + 0.25 * 0.5 + 1) / 2.25);
  close(fusedScore(0.2, 0.5, undefined, "fact"), (0.8 + 0.25 * 0.5) / 1.25);
  close(fusedScore(0.2, 0.5, 1, "turn"), fusedScore(0.2, 0.5, 1));
  const ranked = rankCandidates([hit("word", 0.6), hit("meaning", 0.3)], 2, {
    lexical: (id) => id === "word" ? 1 : 0,
    neighbours: () => [],
    kind: () => "fact",
  });
  assert.deepEqual(ranked.map((r) => r.hit.id), ["meaning", "word"]);
});

Deno.test("rankCandidates: a fact that holds the kind of answer asked for gains", () => {
  close(fusedScore(0.2, 0.5, 1, "fact", 1), (0.8 + 0.125 + 1 + 1) / 3.25);
  close(fusedScore(0.2, 0.5, 1, "fact", 0), (0.8 + 0.125 + 1) / 3.25);
  close(fusedScore(0.2, 0.5, 1, "turn", 1), fusedScore(0.2, 0.5, 1), "not for a turn");
  const ranked = rankCandidates([hit("closer", 0.3), hit("dated", 0.4)], 2, {
    lexical: () => 0,
    neighbours: () => [],
    kind: () => "fact",
    answer: (id) => id === "dated" ? 1 : 0,
  });
  assert.deepEqual(ranked.map((r) => r.hit.id), ["dated", "closer"]);
  assert.deepEqual([ranked[0].parts.answer, ranked[1].parts.answer], [1, 0]);
});

Deno.test("rankCandidates: a minimum score, and equal scores in the order of ids", () => {
  const twins = [hit("m3", 0.5), hit("m1", 0.5), hit("m2", 0.5), hit("m0", 0.9)];
  const none = () => [];
  const ranked = rankCandidates(twins, 10, { lexical: () => 0, neighbours: none }, 0.2);
  assert.deepEqual(ranked.map((r) => r.hit.id), ["m1", "m2", "m3"], "m0 scores 0.05");
  assert.deepEqual(
    rankCandidates(twins.toReversed(), 2, { lexical: () => 0, neighbours: none })
      .map((r) => r.hit.id),
    ["m1", "m2"],
    "the same whatever the order of the candidates",
  );
});

Deno.test("rankCandidates: re-ranked, only candidates with a re-ranker score are ranked", () => {
  const reranked = new Map([["q", 0], ["a", 1], ["f", 0.5]]);
  const ranked = rankCandidates(candidates, 10, { lexical, neighbours, reranked });
  assert.deepEqual(ranked.map((r) => r.hit.id), ["a", "q", "f"], "g's text was unreadable");
  // Fused: q (.8 + 1) / 4 = .45, a (.3 + 2) / 4 = .575, f (.4 + 1) / 4 = .35.
  close(ranked[0].score, (0.575 + 0.6 * 0.45) / 1.6);
  close(ranked[1].score, (0.45 + 0.6 * 0.575) / 1.6);
  close(ranked[2].score, 0.35 / 1.6);
  assert.deepEqual(
    rankCandidates(candidates, 10, { lexical, neighbours, reranked: new Map() }),
    [],
  );
});
