import assert from "node:assert/strict";
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

Deno.test("vector column: dot products match a plain loop, across growth, for any dimensions", () => {
  const small = new VectorColumn(128, 16); // under a page: a plain array, scored in JavaScript
  small.values.set(Float32Array.from({ length: 16 * 128 }, (_, i) => Math.sin(i)));
  const q = Float32Array.from({ length: 128 }, (_, i) => Math.cos(i));
  const before = Array.from(small.dots(q, 16));
  small.grow(4000); // now in WebAssembly memory, scored by the kernel
  assert.deepEqual(Array.from(small.dots(q, 16)), before, "a row scores the same either way");

  for (const dimensions of [4, 128, 384, 6]) {
    const column = new VectorColumn(dimensions, 16);
    const rows = 3000;
    column.grow(rows);
    for (let i = 0; i < rows * dimensions; i++) column.values[i] = Math.sin(i * 0.37);
    column.grow(rows * 2); // growing keeps the rows
    const query = Float32Array.from({ length: dimensions }, (_, i) => Math.cos(i * 0.11));
    const want = expected(column.values, query, rows);
    const got = Array.from(column.dots(query, rows)); // a view of scratch memory: copied
    assert.equal(got.length, rows);
    for (let row = 0; row < rows; row++) {
      assert.ok(Math.abs(got[row] - want[row]) < 1e-4, `row ${row} of ${dimensions} dimensions`);
    }
    const some = [2999, 0, 1234];
    assert.deepEqual(column.dotsOf(query, some), some.map((row) => got[row]), "some as all");
  }
});
