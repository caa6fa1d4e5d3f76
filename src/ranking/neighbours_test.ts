import assert from "node:assert/strict";
import { timeOrderedId } from "../ids.ts";
import { NamespaceIndex } from "./lexical_index.ts";
import { liftedScore, recallNeighbours } from "./neighbours.ts";

Deno.test("recallNeighbours: two places either side within the thread, none without one", () => {
  const start = Date.now();
  const ids = [0, 1, 2, 3, 4, 5, 6].map((i) => timeOrderedId(start + i * 3_600_000));
  const threads = ["s1", "s1", undefined, "s1", "s2", "s1", "s1"];
  const index = NamespaceIndex.of(ids.map((id, i) => ({
    id,
    terms: ["x"],
    blobId: id,
    createdAt: 0,
    ...(threads[i] && { info: { thread: threads[i] } }),
  })));
  const neighbours = recallNeighbours(index);
  assert.deepEqual(neighbours(ids[0]), [ids[1], ids[3]]);
  assert.deepEqual(neighbours(ids[3]), [ids[0], ids[1], ids[5], ids[6]], "hours apart");
  assert.deepEqual(neighbours(ids[2]), [], "no thread");
  assert.deepEqual(neighbours(ids[4]), [], "alone in its thread");
});

Deno.test("liftedScore: a share of the best neighbour's score", () => {
  assert.equal(liftedScore(0.5, [0.1, 0.9]), (0.5 + 0.6 * 0.9) / 1.6);
});
