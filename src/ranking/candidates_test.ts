import assert from "node:assert/strict";
import type { VectorHit } from "../backends/types.ts";
import { gatherCandidates, poolSize } from "./candidates.ts";

const hit = (id: string, distance: number): VectorHit => ({
  id,
  blobId: `blob-${id}`,
  distance,
  createdAt: 0,
});

/** A vector store's hits by id, and the id lists it was asked to look up. */
function store(hits: VectorHit[]) {
  const byId = new Map(hits.map((h) => [h.id, h]));
  const asked: string[][] = [];
  const lookup = (ids: string[]) => {
    asked.push(ids);
    return Promise.resolve(ids.flatMap((id) => byId.get(id) ?? []));
  };
  return { asked, lookup };
}

Deno.test("poolSize: three times the limit, at least 30", () => {
  assert.deepEqual([1, 10, 11, 20, 100].map(poolSize), [30, 30, 33, 60, 300]);
});

Deno.test("gatherCandidates: the pool by fused score, then the followers of its best third", async () => {
  const nearest = [
    hit("m10", 0.1),
    hit("m20", 0.2),
    hit("m30", 0.3),
    hit("m40", 0.9),
    hit("m50", 0.95),
    hit("m60", 1.0),
    hit("m70", 1.2),
  ];
  const { asked, lookup } = store([
    ...nearest,
    hit("m80", 0.5),
    hit("m81", 0.8),
    hit("m31", 1.1),
    hit("m11", 0.4),
  ]);
  const lexical = new Map([["m80", 1], ["m30", 0.5]]);
  const neighbours = new Map([
    ["m80", ["m70", "m79", "m81", "m82"]],
    ["m30", ["m20", "m31", "m40", "m60"]],
    ["m10", ["m11"]],
  ]);
  const candidates = await gatherCandidates(6, {
    nearest,
    lexicalIds: ["m80", "m30"],
    lexical: (id) => lexical.get(id) ?? 0,
    neighbours: (id) => neighbours.get(id) ?? [],
    lookup,
  });
  // Fused: m80 .75, m30 .6, m10 .45, m20 .4, m40 .05, m50 .025; m60 and m70 (0) miss the pool.
  // The best third (m80, m30) brings its followers: m81 and m31 looked up (m82 is gone), m60
  // back from beyond the pool, m40 already in it; earlier neighbours and m10's follower do not.
  assert.deepEqual(candidates.map((h) => h.id), [
    "m80",
    "m30",
    "m10",
    "m20",
    "m40",
    "m50",
    "m81",
    "m31",
    "m60",
  ]);
  assert.deepEqual(asked, [["m80"], ["m81", "m82", "m31"]], "only missing hits are looked up");
  assert.equal(candidates.find((h) => h.id === "m80")?.distance, 0.5, "the store's hit");
});

Deno.test("gatherCandidates: nothing looked up when the vector search has every hit", async () => {
  const nearest = [hit("b", 0.3), hit("a", 0.1)];
  const { asked, lookup } = store(nearest);
  const candidates = await gatherCandidates(30, {
    nearest,
    lexicalIds: ["a"],
    lexical: (id) => id === "a" ? 1 : 0,
    neighbours: (id) => id === "a" ? ["b"] : ["a"],
    lookup,
  });
  assert.deepEqual(candidates.map((h) => h.id), ["a", "b"]);
  assert.deepEqual(asked, []);
});

Deno.test("gatherCandidates: the pool is cut with the weights of each memory's kind", async () => {
  const nearest = [hit("a", 0.2), hit("b", 0.3), hit("c", 0.4)];
  const { lookup } = store([...nearest, hit("z", 0.9)]);
  const sources = {
    nearest,
    lexicalIds: ["z"],
    lexical: (id: string) => id === "z" ? 1 : 0,
    neighbours: () => [],
    lookup,
  };
  // A turn weighs words as much as meaning: the memory sharing the question's words joins.
  const turns = await gatherCandidates(3, sources);
  assert.deepEqual(turns.map((h) => h.id), ["z", "a", "b"]);
  // A fact under a sentence model's weights (words weigh nothing): the model's nearest stay.
  const weights = {
    turn: { lexical: 1, rerank: 0, answer: 0 },
    fact: { lexical: 0, rerank: 0, answer: 0 },
  };
  const facts = await gatherCandidates(3, { ...sources, kind: () => "fact", weights });
  assert.deepEqual(facts.map((h) => h.id), ["a", "b", "c"]);
});
