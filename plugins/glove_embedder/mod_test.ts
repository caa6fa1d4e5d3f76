import assert from "node:assert/strict";
import { LanceDbVectorStore } from "@svc/lancedb";
import { GloveEmbedder, tokens } from "./mod.ts";
import { TEST_MODELS_DIR } from "../../tests/relayer_process.ts";
import { digestOf, VARIED_TEXTS } from "../../tests/fixtures/varied_text.ts";

const open = () => GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR });
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

Deno.test("glove: tokenisation of case, punctuation, contractions and numbers", () => {
  const cases: [string, string[]][] = [
    ["Hello, WORLD!", ["hello", "world"]],
    ["I'm sure I don't know", ["i", "sure", "i", "do", "know"]],
    ["We can't, we won't.", ["we", "can", "we", "will"]],
    ["Mel's dog’s bowl", ["mel", "dog", "bowl"]],
    ["Born in 1990, moved 3.5 km", ["born", "in", "1990", "moved", "3.5", "km"]],
    ["e-mail re-sent", ["e-mail", "re-sent"]],
  ];
  for (const [text, expected] of cases) assert.deepEqual(tokens(text), expected, text);
});

Deno.test("glove: deterministic unit vectors; meaning beats shared template words", async () => {
  const embedder = await open();
  const [a, b] = await embedder.embed(["I adore puppies", "I adore puppies"]);
  assert.deepEqual(a, b);
  assert.equal(a.length, embedder.dimensions);
  assert.ok(Math.abs(Math.hypot(...a) - 1) < 1e-5);
  const closer = async (anchor: string, near: string, far: string) => {
    const [x, y, z] = await embedder.embed([anchor, near, far]);
    assert.ok(cos(x, y) > cos(x, z), `${anchor}: "${near}" should beat "${far}"`);
  };
  await closer("I love dogs", "I adore puppies", "tax filing deadline");
  await closer(
    "I work as a nurse at the hospital",
    "What is my job?",
    "What is my favorite movie?",
  );
  await closer(
    "I am allergic to peanuts",
    "Which foods should I avoid?",
    "My car needs an oil change",
  );
  await closer("We flew to Lisbon for the holidays", "a trip to Portugal", "a new laptop at work");
  // Words GloVe does not know still match through the hashed part.
  await closer("My cat is called Zyxwvut", "Who is Zyxwvut?", "Who is Rex?");
});

Deno.test("glove: the vectors of svc-glove100-sif-oov28-v1 stay the same", async () => {
  // Indexes on disk were built with these vectors: a change here needs a new model id.
  const embedder = await open();
  assert.equal(embedder.model, "svc-glove100-sif-oov28-v1");
  assert.equal(
    await digestOf(await embedder.embed([...VARIED_TEXTS])),
    "c80d29dc2640329e6d8cbcc7392b449dc2ab21b2d1ba412dfff35ed21b0e5e64",
  );
});

Deno.test("glove: the re-ranker's soft match ranks texts covering the query's words", async () => {
  const reranker = (await open()).reranker();
  const [exact, related, unrelated] = await reranker.rerank("which puppy did I adopt?", [
    "I adopted a puppy last spring",
    "We brought home a little dog",
    "The invoice is due on Friday",
  ]);
  assert.ok(exact > related && related > unrelated, `${exact} ${related} ${unrelated}`);
  assert.ok(exact <= 1 && unrelated >= 0);
  assert.deepEqual(await reranker.rerank("the a of", ["anything"]), [0]);
  const all = [];
  for (const query of VARIED_TEXTS) all.push(await reranker.rerank(query, [...VARIED_TEXTS]));
  assert.equal(
    await digestOf(JSON.stringify(all)),
    "7878036648c193e3886b81f7a7e494762e3a0544dd0f6affee42eb7a8e6e3d47",
    "the same scores for the same texts",
  );
});

Deno.test("glove: a query word most of the texts hold weighs less in the soft match", async () => {
  const reranker = (await open()).reranker();
  const texts = [
    "I live in Bristol",
    "I dream of retiring to the Azores",
    "We live near the park",
    "They live by the sea",
  ];
  const [bristol, azores] = await reranker.rerank("where will I live once I retire?", texts);
  assert.ok(azores > bristol, `${azores} ${bristol}: "live" is in three texts of four`);
  const [alone] = await reranker.rerank("where will I live once I retire?", [texts[0]]);
  assert.ok(alone > bristol, "among fewer texts holding it, the same word weighs more");
});

Deno.test("glove: the re-ranker scores the same with texts kept between calls, and after forgetting", async () => {
  const reranker = (await open()).reranker();
  const fresh = (await open()).reranker();
  const texts = [...VARIED_TEXTS];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < texts.length; i += 7) {
      const query = texts[(i * 5 + round) % texts.length];
      const some = texts.slice(i, i + 12);
      const keptScores = await reranker.rerank(query, some, { keep: () => true });
      assert.deepEqual(keptScores, await fresh.rerank(query, some), `round ${round}, query ${i}`);
    }
    if (round === 1) texts.forEach((text) => reranker.forget(text));
  }
});

Deno.test("glove: the cache is rebuilt when damaged, and the recipe names the index", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await open(); // makes sure the shared cache exists
    await Deno.copyFile(
      `${TEST_MODELS_DIR}/glove-100d-100k-v1.bin`,
      `${dir}/glove-100d-100k-v1.bin`,
    );
    const first = await GloveEmbedder.open({ cacheDir: dir });
    await Deno.writeTextFile(`${dir}/glove-100d-100k-v1.bin`, "damaged");
    const rebuilt = await GloveEmbedder.open({ cacheDir: dir });
    assert.deepEqual(await rebuilt.embed(["a cup of tea"]), await first.embed(["a cup of tea"]));
    assert.ok((await Deno.stat(`${dir}/glove-100d-100k-v1.bin`)).size > 10_000_000);

    const index = await LanceDbVectorStore.open({
      dir: `${dir}/lancedb`,
      model: first.model,
      dimensions: first.dimensions,
    });
    await index.close();
    await assert.rejects(
      LanceDbVectorStore.open({
        dir: `${dir}/lancedb`,
        model: "svc-glove100-sif-v0",
        dimensions: 128,
      }),
      new RegExp(first.model),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("glove: a cache folder that cannot be written is no obstacle", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/file`, "");
    const unwritable = await GloveEmbedder.open({ cacheDir: `${dir}/file/models` });
    const cached = await open();
    assert.deepEqual(
      await unwritable.embed(["a cup of tea"]),
      await cached.embed(["a cup of tea"]),
    );
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["file"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
