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
  for (const dimensions of [4, 128, 384, 6]) {
    const column = new VectorColumn(dimensions, 16);
    const rows = 3000;
    column.grow(rows);
    for (let i = 0; i < rows * dimensions; i++) column.values[i] = Math.sin(i * 0.37);
    column.grow(rows * 2); // growing keeps the rows
    const query = Float32Array.from({ length: dimensions }, (_, i) => Math.cos(i * 0.11));
    const want = expected(column.values, query, rows);
    const got = column.dots(query, rows);
    assert.equal(got.length, rows);
    for (let row = 0; row < rows; row++) {
      assert.ok(Math.abs(got[row] - want[row]) < 1e-4, `row ${row} of ${dimensions} dimensions`);
      if (row % 500 === 0) assert.equal(column.dot(query, row), got[row], "one row as all rows");
    }
  }
});
