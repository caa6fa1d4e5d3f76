import assert from "node:assert/strict";
import { seededRandom } from "@svc/relayer/testing";
import { Resident, unit } from "./resident.ts";
import { VectorColumn } from "./vector_column.ts";

/** The dot products as a plain loop computes them, in double precision. */
function expected(values: Float32Array, query: Float32Array, n: number): number[] {
  const d = query.length;
  return Array.from({ length: n }, (_, row) => {
    let dot = 0;
    for (let i = 0; i < d; i++) dot += query[i] * values[row * d + i];
    return dot;
  });
}

const all = (n: number) => Array.from({ length: n }, (_, row) => row);

/** A vector of `dimensions` numbers drawn evenly from -1..1. */
const draw = (random: () => number, dimensions: number) =>
  Array.from({ length: dimensions }, () => random() * 2 - 1);

Deno.test("vector column: dot products match a plain loop, across growth, for any dimensions", () => {
  const small = new VectorColumn(128, 16); // under a page: a plain array, scored in JavaScript
  small.set(0, Float32Array.from({ length: 16 * 128 }, (_, i) => Math.sin(i)));
  const q = Float32Array.from({ length: 128 }, (_, i) => Math.cos(i));
  const before = small.dotsOf(q, all(16));
  small.grow(4000); // now in WebAssembly memory, scored by the kernel
  assert.deepEqual(small.dotsOf(q, all(16)), before, "a row scores the same either way");

  for (const dimensions of [4, 128, 384, 6, 100]) {
    const column = new VectorColumn(dimensions, 16);
    const rows = 3000;
    column.grow(rows);
    const values = Float32Array.from({ length: rows * dimensions }, (_, i) => Math.sin(i * 0.37));
    column.set(0, values);
    column.grow(rows * 2); // growing keeps the rows
    const query = Float32Array.from({ length: dimensions }, (_, i) => Math.cos(i * 0.11));
    const want = expected(values, query, rows);
    const got = column.dotsOf(query, all(rows));
    for (let row = 0; row < rows; row++) {
      assert.ok(Math.abs(got[row] - want[row]) < 1e-4, `row ${row} of ${dimensions} dimensions`);
    }
    const some = [2999, 0, 1234];
    assert.deepEqual(column.dotsOf(query, some), some.map((row) => got[row]), "some as all");
  }
});

/** The rows holding the `k` largest of `scores`, ties at the `k`-th included. */
function best(scores: number[], k: number): number[] {
  const kth = [...scores].sort((a, b) => b - a)[k - 1];
  return all(scores.length).filter((row) => scores[row] >= kth);
}

Deno.test("vector column: the shortlist holds every row an exact scan ranks in the best k, ties included", () => {
  const random = seededRandom(11);
  for (const dimensions of [128, 100, 384]) {
    const n = 4000;
    const column = new VectorColumn(dimensions, 16);
    column.grow(n / 2);
    const values = new Float32Array(n * dimensions);
    const base = Array.from({ length: 20 }, () => unit(draw(random, dimensions)));
    for (let row = 0; row < n; row++) {
      // Rows clustered round a few directions (as memories on one subject are), some repeated.
      const copy = row % 97 === 5 ? row - 5 : -1;
      const vector = copy >= 0
        ? values.slice(copy * dimensions, (copy + 1) * dimensions)
        : unit(base[row % 20].map((x) => x + 0.4 * (random() * 2 - 1)));
      values.set(vector, row * dimensions);
    }
    column.set(0, values.subarray(0, (n / 2) * dimensions));
    column.grow(n); // already in WebAssembly memory: the codes and scales move
    column.set(n / 2, values.subarray((n / 2) * dimensions));
    for (let trial = 0; trial < 30; trial++) {
      const query = trial % 3 === 0
        ? values.slice(trial * dimensions, (trial + 1) * dimensions) // a stored row: ties at the top
        : unit(base[trial % 20].map((x) => x + 0.3 * (random() * 2 - 1)));
      const k = [1, 10, 30, 90][trial % 4];
      const rows = n - (trial % 7 % 4); // the kernel scans four rows a turn, then one by one
      const exact = column.dotsOf(query, all(rows));
      const shortlist = new Set(column.shortlist(query, rows, k));
      for (const row of best(exact, k)) {
        assert.ok(shortlist.has(row), `row ${row} of the best ${k} (${dimensions} dimensions)`);
      }
      assert.ok(shortlist.size < n / 4, `${shortlist.size} of ${n} rows shortlisted`);
    }
  }
});

Deno.test("vector column: a namespace searched through the shortlist ranks as scoring every row, after removals", () => {
  const random = seededRandom(5);
  const dimensions = 128;
  const resident = new Resident(dimensions);
  const n = 3000;
  const ids = all(n).map((i) => `m${String(i).padStart(5, "0")}`);
  const vectors = new Float32Array(n * dimensions);
  for (let row = 0; row < n; row++) {
    vectors.set(unit(draw(random, dimensions)), row * dimensions);
  }
  vectors.copyWithin(7 * dimensions, 3 * dimensions, 4 * dimensions); // m00003 and m00007 tie
  resident.addBlock("b1", 0, {
    count: n,
    plainBytes: 0,
    ids,
    blobIds: ids,
    terms: ids.map(() => ""),
    infos: null,
    createdAt: new Float64Array(n),
    vectors,
  });
  const gone = new Set(ids.filter(() => random() < 0.2));
  gone.delete("m00003");
  gone.delete("m00007");
  for (const id of gone) resident.remove(id); // the last rows move into the removed rows' places
  const kept = all(n).filter((row) => !gone.has(ids[row]));
  const keptIds = kept.map((row) => ids[row]);
  for (let trial = 0; trial < 20; trial++) {
    const query = trial === 0
      ? vectors.slice(3 * dimensions, 4 * dimensions)
      : unit(draw(random, dimensions));
    // Among given ids every row is scored exactly: the ranking to match.
    const want = resident.search(query, 25, keptIds);
    const got = resident.search(query, 25);
    assert.deepEqual(got, want, `query ${trial}`);
    if (trial === 0) assert.deepEqual(got.slice(0, 2).map((hit) => hit.id), ["m00003", "m00007"]);
  }
});
