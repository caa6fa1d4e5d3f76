import assert from "node:assert/strict";
import { embedderSuite } from "@svc/relayer/testing";
import { SvcError } from "@svc/relayer/kit";
import { OnnxEmbedder, type OnnxEmbedderOptions } from "./mod.ts";
import {
  type TinyModelOptions,
  tinyTables,
  tinyVocabulary,
  writeTinyModel,
} from "./testing/tiny_model.ts";

/** An embedder on a fresh tiny model directory, removed with it. */
async function tiny(model: TinyModelOptions = {}, options: Partial<OnnxEmbedderOptions> = {}) {
  const dir = await Deno.makeTempDir({ prefix: "svc-onnx-" });
  await writeTinyModel(dir, model);
  const embedder = await OnnxEmbedder.open({ dir, ...options });
  const close = embedder.close.bind(embedder);
  return Object.assign(embedder, {
    dir,
    async [Symbol.asyncDispose]() {
      await close();
      await Deno.remove(dir, { recursive: true });
    },
  });
}

/** What the tiny model gives for `words` by hand: each token's row plus type 0, pooled. */
function byHand(words: string[], pooling: "mean" | "cls", model: TinyModelOptions = {}) {
  const { hidden, words: table, types } = tinyTables(model);
  const vocabulary = tinyVocabulary();
  const ids = [vocabulary.indexOf("[CLS]"), ...words.map((w) => vocabulary.indexOf(w))];
  ids.push(vocabulary.indexOf("[SEP]"));
  assert.ok(ids.every((id) => id >= 0), `${words} are in the vocabulary`);
  const used = pooling === "cls" ? ids.slice(0, 1) : ids;
  const out = new Float64Array(hidden);
  for (const id of used) {
    for (let h = 0; h < hidden; h++) out[h] += table[id * hidden + h] + (types?.[h] ?? 0);
  }
  const norm = Math.hypot(...out);
  return [...out].map((x) => x / norm);
}

function assertClose(actual: Float32Array, expected: number[]) {
  assert.equal(actual.length, expected.length);
  for (const [i, x] of expected.entries()) {
    assert.ok(Math.abs(actual[i] - x) < 1e-5, `value ${i}: ${actual[i]} vs ${x}`);
  }
}

embedderSuite("onnx (tiny model, mean pooling)", () => tiny());
embedderSuite(
  "onnx (tiny model in onnx/, no token types, max pooling)",
  () => tiny({ pooling: "max", tokenTypes: false, modelPath: "onnx/model.onnx" }),
);

Deno.test("onnx: the vectors are the graph's token states, pooled as 1_Pooling says", async () => {
  await using mean = await tiny({ pooling: "mean" });
  assert.equal(mean.dimensions, 32);
  assert.deepEqual(mean.recipe.pooling, ["mean"]);
  assert.equal(mean.recipe.poolingFrom, "1_Pooling/config.json");
  const [dog] = await mean.embed(["My dog, Rex!"]);
  assertClose(dog, byHand(["my", "dog", ",", "rex", "!"], "mean"));

  await using cls = await tiny({ pooling: "cls", hidden: 16 });
  assert.equal(cls.dimensions, 16);
  const [a, b] = await cls.embed(["my dog", "quarterly tax filing"]);
  // The tiny graph has no attention: the first token's state is [CLS]'s whatever follows.
  assertClose(a, byHand([], "cls", { hidden: 16 }));
  assert.deepEqual(a, b);
});

Deno.test("onnx: batches of padded texts give each text's own vector, in order", async () => {
  await using embedder = await tiny({}, { batchSize: 3 });
  const words = tinyVocabulary().slice(5, 40);
  const texts = Array.from(
    { length: 11 },
    (_, i) => words.slice(i, i + 1 + (i * 7) % 13).join(" "),
  );
  const together = await embedder.embed(texts);
  const alone = [];
  for (const text of texts) alone.push((await embedder.embed([text]))[0]);
  assert.equal(together.length, texts.length);
  for (const [i, vector] of together.entries()) assertClose(vector, [...alone[i]]);
  assert.notDeepEqual(together[0], together[1]);
});

Deno.test("onnx: texts longer than the model's length are truncated, special tokens kept", async () => {
  await using embedder = await tiny({ maxSeqLength: 4 });
  assert.equal(embedder.recipe.maxLength, 4);
  const [long] = await embedder.embed(["my dog loves the city of paris in the morning"]);
  assertClose(long, byHand(["my", "dog"], "mean"));
});

Deno.test("onnx: query and document prefixes of the model's family, or its config's", async () => {
  await using plain = await tiny();
  await using e5 = await tiny({}, { name: "intfloat/multilingual-e5-small" });
  assert.deepEqual(e5.recipe.prefixes, { query: "query: ", document: "passage: " });
  assert.deepEqual(plain.recipe.prefixes, { query: "", document: "" });
  const [query] = await e5.embed(["my dog"], { purpose: "query" });
  const [passage] = await e5.embed(["my dog"]);
  assert.deepEqual(query, (await plain.embed(["query: my dog"]))[0]);
  assert.deepEqual(passage, (await plain.embed(["passage: my dog"]))[0]);
  assert.notEqual(e5.model, plain.model, "the prefixes are part of the vector recipe");

  await using prompted = await tiny({ prompts: { query: "query: ", passage: "" } });
  assert.deepEqual(prompted.recipe.prefixes, { query: "query: ", document: "" });
  await using bge = await tiny({}, { name: "BAAI/bge-small-en-v1.5", queryPrefix: "query: " });
  assert.deepEqual(bge.recipe.prefixes, { query: "query: ", document: "" });
});

Deno.test("onnx: the model id names the model and changes with the graph's bytes", async () => {
  await using a = await tiny();
  await using b = await tiny();
  await using other = await tiny({ seed: 2 });
  assert.match(a.model, /^onnx:svc-onnx-\w+:[0-9a-f]{16}$/);
  assert.equal(a.model.split(":")[2], b.model.split(":")[2]);
  assert.notEqual(a.model.split(":")[2], other.model.split(":")[2]);
});

Deno.test("onnx: a call aborted while it waits rejects; the embedder goes on", async () => {
  await using embedder = await tiny({}, { batchSize: 1 });
  const controller = new AbortController();
  const texts = Array.from({ length: 50 }, (_, i) => `my dog ${"rex ".repeat(i % 9)}`);
  const waiting = embedder.embed(texts, { signal: controller.signal });
  controller.abort(new Error("caller gave up"));
  await assert.rejects(waiting, /caller gave up/);
  const [vector] = await embedder.embed(["my dog"]);
  assert.equal(vector.length, embedder.dimensions);
});

Deno.test("onnx: after close, embedding is refused as backend_unavailable", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-onnx-" });
  try {
    await writeTinyModel(dir);
    const embedder = await OnnxEmbedder.open({ dir });
    await embedder.close();
    await embedder.close();
    await assert.rejects(
      embedder.embed(["my dog"]),
      (error) => error instanceof SvcError && error.code === "backend_unavailable",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
