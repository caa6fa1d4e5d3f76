import assert from "node:assert/strict";
import { TEST_MODELS_DIR } from "../../tests/relayer_process.ts";
import { GloveEmbedder } from "./mod.ts";
import { decode, DIMENSIONS } from "./vectors.ts";
import { WordRows } from "./word_rows.ts";

const table = async () => {
  await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR }); // converts the cache if missing
  return decode(await Deno.readFile(`${TEST_MODELS_DIR}/glove-100d-100k-v1.bin`))!;
};

/**
 * Every similarity of a call, gathered from its parts (`out[w * queries.length + q]`), and the
 * number of parts; each part must stay within 64 Ki similarities.
 */
function gathered(rows: WordRows, queries: Int32Array, words: Int32Array) {
  const m = queries.length;
  const out = new Float32Array(words.length * m).fill(NaN);
  let parts = 0;
  rows.similarities(queries, words, (q0, mPart, w0, nPart, found) => {
    parts++;
    assert.ok(mPart * nPart <= 65_536 && found.length === mPart * nPart);
    for (let w = 0; w < nPart; w++) {
      for (let q = 0; q < mPart; q++) out[(w0 + w) * m + q0 + q] = found[w * mPart + q];
    }
  });
  assert.ok(!out.some(Number.isNaN), "every similarity is handed over once");
  return { out, parts };
}

/** Cosine similarity of two rows in double precision. */
function cosine(values: Int8Array, a: number, b: number): number {
  let dot = 0, aa = 0, bb = 0;
  for (let i = 0; i < DIMENSIONS; i++) {
    const x = values[a * DIMENSIONS + i], y = values[b * DIMENSIONS + i];
    dot += x * y;
    aa += x * x;
    bb += y * y;
  }
  return dot / Math.sqrt(aa * bb);
}

Deno.test("word rows: similarities are the rows' cosines, the same in WebAssembly and JavaScript", async () => {
  const { values, count } = await table();
  const kernel = new WordRows(values, count);
  const script = new WordRows(values, count, { webAssembly: false });
  assert.ok(kernel.inWebAssembly && !script.inWebAssembly);
  const queries = Int32Array.of(0, 17, 4_321, count - 1);
  const words = Int32Array.from({ length: 500 }, (_, i) => (i * 7_919) % count);
  const found = gathered(kernel, queries, words).out;
  assert.deepEqual(found, gathered(script, queries, words).out);
  words.forEach((w, i) => {
    queries.forEach((q, j) => {
      const expected = cosine(values, q, w);
      const actual = found[i * queries.length + j];
      assert.ok(Math.abs(actual - expected) < 1e-6, `rows ${q} and ${w}: ${actual} ${expected}`);
    });
  });
  // A row with itself is 1; padding holds nothing, so the copies' rows are the table's rows.
  assert.ok(Math.abs(gathered(kernel, Int32Array.of(5), Int32Array.of(5)).out[0] - 1) < 1e-6);
  for (const row of [0, 1, count - 1]) {
    assert.deepEqual(
      kernel.values.subarray(row * 112, row * 112 + DIMENSIONS),
      values.subarray(row * DIMENSIONS, (row + 1) * DIMENSIONS),
    );
  }
});

Deno.test("word rows: a call larger than the scratch memory goes in bounded parts", async () => {
  const { values, count } = await table();
  const kernel = new WordRows(values, count);
  const script = new WordRows(values, count, { webAssembly: false });
  // 1,500 query rows (two parts of at most 1,024) against 3,000 words (many parts each).
  const queries = Int32Array.from({ length: 1_500 }, (_, i) => (i * 104_729) % count);
  const words = Int32Array.from({ length: 3_000 }, (_, i) => (i * 7_919 + 3) % count);
  const inParts = gathered(kernel, queries, words);
  assert.ok(inParts.parts > 2, `${inParts.parts} parts`);
  assert.deepEqual(inParts.out, gathered(script, queries, words).out);
  assert.equal(gathered(kernel, queries, new Int32Array(0)).parts, 0);
});
