import assert from "node:assert/strict";
import { normalise, pool } from "./pooling.ts";

// Two sequences of three tokens, 2 values per token; the second has one token of padding.
const STATES = new Float32Array([
  1,
  2,
  /**/ 3,
  4,
  /**/ 5,
  6, // sequence 0
  7,
  8,
  /**/ -1,
  10,
  /**/ 99,
  99, // sequence 1: the last token is padding
]);
const MASK = [1, 1, 1, 1, 1, 0];
const DIMS = [2, 3, 2];
const plain = (vectors: Float32Array[]) => vectors.map((v) => [...v]);

Deno.test("pool: mean, max, cls and last token leave padding out", () => {
  assert.deepEqual(plain(pool(STATES, MASK, DIMS, ["mean"])), [[3, 4], [3, 9]]);
  assert.deepEqual(plain(pool(STATES, MASK, DIMS, ["max"])), [[5, 6], [7, 10]]);
  assert.deepEqual(plain(pool(STATES, MASK, DIMS, ["cls"])), [[1, 2], [7, 8]]);
  assert.deepEqual(plain(pool(STATES, MASK, DIMS, ["lasttoken"])), [[5, 6], [-1, 10]]);
});

Deno.test("pool: mean by the square root of the length, weighted mean, bigint masks", () => {
  const sqrt = plain(pool(STATES, MASK.map(BigInt), DIMS, ["mean_sqrt_len"]));
  assert.deepEqual(sqrt[1].map((x) => Math.round(x * 1e4) / 1e4), [
    Math.round((6 / Math.SQRT2) * 1e4) / 1e4,
    Math.round((18 / Math.SQRT2) * 1e4) / 1e4,
  ]);
  // Weights 1, 2, 3 by position: (1·1 + 2·3 + 3·5) / 6 and (1·2 + 2·4 + 3·6) / 6.
  const [weighted] = plain(pool(STATES, MASK, DIMS, ["weightedmean"]));
  assert.deepEqual(weighted.map((x) => Math.round(x * 1e4) / 1e4), [
    Math.round((22 / 6) * 1e4) / 1e4,
    Math.round((28 / 6) * 1e4) / 1e4,
  ]);
});

Deno.test("pool: several modes are concatenated in sentence-transformers' order", () => {
  assert.deepEqual(plain(pool(STATES, MASK, DIMS, ["cls", "mean"])), [[1, 2, 3, 4], [7, 8, 3, 9]]);
});

Deno.test("normalise: unit length; a zero vector is a fixed unit vector; NaN is refused", () => {
  assert.deepEqual([...normalise(new Float32Array([3, 4]))], [
    0.6000000238418579,
    0.800000011920929,
  ]);
  assert.deepEqual([...normalise(new Float32Array([0, 0, 0]))], [1, 0, 0]);
  assert.throws(() => normalise(new Float32Array([1, NaN])), /not finite/);
});
