import assert from "node:assert/strict";
import { embedderSuite } from "@svc/relayer/testing";
import { SvcError } from "@svc/relayer/kit";
import { USE_MODEL_ID, UseEmbedder } from "./mod.ts";

embedderSuite("UseEmbedder", () => UseEmbedder.open({ batchSize: 2 }));

const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);

Deno.test("use: a question finds its paraphrase among unrelated facts", async () => {
  await using embedder = await UseEmbedder.open();
  assert.equal(embedder.model, USE_MODEL_ID);
  assert.equal(embedder.dimensions, 512);
  const facts = [
    "I commute by bicycle",
    "My sister lives in Lisbon",
    "I am allergic to peanuts",
    "Our cat is named Miso",
  ];
  const vectors = await embedder.embed(facts);
  const questions: [string, number][] = [
    ["How do I get to work?", 0],
    ["Where does my sibling live?", 1],
    ["What food must I avoid?", 2],
    ["What is my pet called?", 3],
  ];
  const queries = await embedder.embed(questions.map(([q]) => q), { purpose: "query" });
  for (const [i, [question, expected]] of questions.entries()) {
    const scores = vectors.map((v) => dot(queries[i], v));
    const best = scores.indexOf(Math.max(...scores));
    assert.equal(
      best,
      expected,
      `${question} → ${facts[best]} (${scores.map((s) => s.toFixed(2))})`,
    );
  }
});

Deno.test("use: batches give the vectors of one-by-one runs, in the callers' order", async () => {
  await using embedder = await UseEmbedder.open({ batchSize: 3 });
  const texts = ["", "a", "My dog Rex loves the beach", "x".repeat(5000), "Tax deadline"];
  const together = await embedder.embed(texts);
  const [alone, empty] = await Promise.all([
    embedder.embed([texts[2]], { purpose: "query" }),
    embedder.embed([texts[0]]),
  ]);
  assert.equal(together.length, texts.length);
  for (const vector of together) assert.ok(Math.abs(Math.sqrt(dot(vector, vector)) - 1) < 1e-4);
  // A batch pads its texts to the longest, which can move the last bit (within 1e-7).
  assert.ok(dot(together[2], alone[0]) > 0.9999, "the same text, batched or not");
  assert.ok(dot(together[0], empty[0]) > 0.9999, "an empty text has a vector too");
});

Deno.test("use: a missing model package is backend_unavailable; a closed embedder refuses", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-use-" });
  try {
    await assert.rejects(
      UseEmbedder.open({ dir: new URL(`file://${dir}/`) }),
      (error) =>
        error instanceof SvcError && error.code === "backend_unavailable" &&
        /model-embeddings-en/.test(error.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const embedder = await UseEmbedder.open();
  await embedder.close();
  await assert.rejects(
    embedder.embed(["anything"]),
    (error) => error instanceof SvcError && error.code === "backend_unavailable",
  );
});

Deno.test("use: the ONNX graph gives the package's TensorFlow.js vectors", async () => {
  // Written by the package's own graph on TensorFlow.js 4.22.0 (`UseModel` as it was before
  // the graph moved to onnxruntime, with @tensorflow/tfjs-converter and -backend-wasm), rounded
  // to 6 decimals.
  const reference: { texts: string[]; vectors: number[][] } = JSON.parse(
    await Deno.readTextFile(new URL("./testdata/reference_vectors.json", import.meta.url)),
  );
  await using embedder = await UseEmbedder.open({ batchSize: 4 });
  const vectors = await embedder.embed(reference.texts);
  for (const [i, vector] of vectors.entries()) {
    const expected = reference.vectors[i];
    const worst = Math.max(...vector.map((v, j) => Math.abs(v - expected[j])));
    assert.ok(worst < 1e-5, `${JSON.stringify(reference.texts[i])}: off by ${worst}`);
  }
});

Deno.test("use: the graph is cached once, and a damaged file written again", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "svc-use-cache-" });
  try {
    const vectorOf = async () => {
      await using embedder = await UseEmbedder.open({ cacheDir });
      return (await embedder.embed(["I commute by bicycle"]))[0];
    };
    const first = await vectorOf();
    const [file] = [...Deno.readDirSync(cacheDir)].map((entry) => `${cacheDir}/${entry.name}`);
    assert.match(file, /use-lite-g1-[0-9a-f]{16}\.onnx$/);
    const written = Deno.statSync(file);
    assert.deepEqual(await vectorOf(), first, "the cached graph gives the same vectors");
    assert.equal(Deno.statSync(file).mtime?.getTime(), written.mtime?.getTime(), "not rewritten");
    await Deno.truncate(file, 1000);
    assert.deepEqual(await vectorOf(), first, "a damaged cache is written again");
    assert.equal(Deno.statSync(file).size, written.size);
    assert.equal([...Deno.readDirSync(cacheDir)].length, 1, "no temporary file is left");
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("use: a cache directory that cannot be written costs only the cache", async () => {
  const file = await Deno.makeTempFile({ prefix: "svc-use-not-a-dir-" });
  try {
    await using embedder = await UseEmbedder.open({ cacheDir: `${file}/models` });
    const [vector] = await embedder.embed(["I commute by bicycle"]);
    assert.equal(vector.length, 512);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("use: a text given twice in one call: equal vectors, each its own array", async () => {
  await using embedder = await UseEmbedder.open({ batchSize: 2 });
  const texts = ["Tax deadline", "My dog Rex loves the beach every summer", "Tax deadline"];
  const vectors = await embedder.embed(texts);
  assert.deepEqual(vectors[0], vectors[2]);
  assert.notEqual(vectors[0], vectors[2]);
  const [alone] = await embedder.embed([texts[1]]);
  assert.ok(dot(vectors[1], alone) > 0.9999, "the others keep their place");
});
