import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { OnnxEmbedder } from "./mod.ts";
import { readModelDirectory } from "./model_dir.ts";
import { modelPrefixes } from "./families.ts";
import { writeTinyModel } from "./testing/tiny_model.ts";
import { GraphBuilder } from "./onnx_graph.ts";

/** A tiny model directory, changed by `alter`, removed after `run`. */
async function withModel(
  alter: (dir: string) => Promise<void>,
  run: (dir: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "svc-onnx-dir-" });
  try {
    await writeTinyModel(dir);
    await alter(dir);
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `open` fails with a start-up error naming the directory and matching `reason`. */
async function refused(dir: string, reason: RegExp) {
  await assert.rejects(OnnxEmbedder.open({ dir }), (error) => {
    assert.ok(error instanceof SvcError, String(error));
    assert.equal(error.code, "backend_unavailable");
    assert.ok(error.message.startsWith(`Cannot load the ONNX model from ${dir}: `), error.message);
    assert.match(error.message, reason);
    return true;
  });
}

Deno.test("model dir: a missing directory or missing files are named at start", async () => {
  await refused("/nonexistent/svc-model", /the directory does not exist/);
  await withModel((dir) => Deno.remove(`${dir}/model.onnx`), async (dir) => {
    await refused(dir, /holds no ONNX graph \(looked for model\.onnx and onnx\/model\.onnx\)/);
  });
  await withModel((dir) => Deno.remove(`${dir}/tokenizer.json`), async (dir) => {
    await refused(dir, /tokenizer\.json is missing/);
  });
  await withModel((dir) => Deno.remove(`${dir}/config.json`), async (dir) => {
    await refused(dir, /config\.json is missing/);
  });
  const file = await Deno.makeTempFile();
  try {
    await refused(file, /it is not a directory/);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("model dir: a corrupt graph, tokenizer or config is a clear start-up error", async () => {
  await withModel(async (dir) => {
    const bytes = await Deno.readFile(`${dir}/model.onnx`);
    await Deno.writeFile(`${dir}/model.onnx`, bytes.subarray(0, bytes.length >> 1));
  }, (dir) => refused(dir, /onnxruntime cannot load model\.onnx/));
  await withModel(
    (dir) => Deno.writeTextFile(`${dir}/model.onnx`, "not a model"),
    (dir) => refused(dir, /onnxruntime cannot load model\.onnx/),
  );
  await withModel(
    (dir) => Deno.writeTextFile(`${dir}/tokenizer.json`, "{ truncated"),
    (dir) => refused(dir, /tokenizer\.json is not valid JSON/),
  );
  await withModel(
    (dir) => Deno.writeTextFile(`${dir}/tokenizer.json`, JSON.stringify({ model: { type: "?" } })),
    (dir) => refused(dir, /tokenizer\.json is not a tokenizer the library reads/),
  );
  await withModel(
    (dir) => Deno.writeTextFile(`${dir}/1_Pooling/config.json`, "{}"),
    (dir) => refused(dir, /1_Pooling\/config\.json turns no pooling mode on/),
  );
});

Deno.test("model dir: modules it does not run and a mismatched hidden size are refused", async () => {
  await withModel(async (dir) => {
    const modules = JSON.parse(await Deno.readTextFile(`${dir}/modules.json`));
    modules.push({
      idx: 3,
      name: "3",
      path: "3_Dense",
      type: "sentence_transformers.models.Dense",
    });
    await Deno.writeTextFile(`${dir}/modules.json`, JSON.stringify(modules));
  }, (dir) => refused(dir, /modules\.json lists sentence_transformers\.models\.Dense \(3_Dense\)/));
  await withModel(
    async (dir) => {
      const pooling = JSON.parse(await Deno.readTextFile(`${dir}/1_Pooling/config.json`));
      await Deno.writeTextFile(
        `${dir}/1_Pooling/config.json`,
        JSON.stringify({ ...pooling, word_embedding_dimension: 384 }),
      );
    },
    (dir) => refused(dir, /a first embedding failed \(.*32 values per token; the config says 384/),
  );
});

Deno.test("model dir: pooling, length and normalisation come from the configs", async () => {
  await withModel(async (dir) => {
    // The pooling module's path is the one modules.json names.
    const modules = JSON.parse(await Deno.readTextFile(`${dir}/modules.json`));
    modules[1].path = "pooling";
    await Deno.writeTextFile(`${dir}/modules.json`, JSON.stringify(modules));
    await Deno.mkdir(`${dir}/pooling`);
    await Deno.writeTextFile(
      `${dir}/pooling/config.json`,
      JSON.stringify({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: true }),
    );
    await Deno.writeTextFile(
      `${dir}/sentence_bert_config.json`,
      JSON.stringify({ max_seq_length: 256 }),
    );
  }, async (dir) => {
    const recipe = await readModelDirectory({ dir });
    assert.deepEqual(recipe.pooling, ["cls", "mean"]);
    assert.equal(recipe.poolingFrom, "1_Pooling/config.json");
    assert.equal(recipe.normalize, true);
    // sentence_bert_config's 256, capped by config.json's max_position_embeddings (64).
    assert.equal(recipe.maxLength, 64);
    await using embedder = await OnnxEmbedder.open({ dir });
    assert.equal(embedder.dimensions, 64, "two modes of 32 values, concatenated");
  });
  await withModel(async (dir) => {
    await Deno.remove(`${dir}/1_Pooling`, { recursive: true });
    await Deno.remove(`${dir}/modules.json`);
  }, async (dir) => {
    const recipe = await readModelDirectory({ dir });
    assert.deepEqual(recipe.pooling, ["mean"]);
    assert.equal(recipe.poolingFrom, "default");
    assert.equal(recipe.normalize, false);
    const bge = await readModelDirectory({ dir, name: "Xenova/bge-small-en-v1.5" });
    assert.deepEqual([bge.pooling, bge.poolingFrom], [["cls"], "family"]);
    const chosen = await readModelDirectory({ dir, pooling: ["cls"] });
    assert.deepEqual(chosen.pooling, ["cls"]);
    assert.equal(chosen.poolingFrom, "setting");
    assert.notEqual(chosen.digest, recipe.digest);
  });
});

Deno.test("prefixes: the config's prompts, else the model family's, else none", () => {
  assert.deepEqual(modelPrefixes("intfloat/e5-base-v2"), {
    query: "query: ",
    document: "passage: ",
  });
  assert.deepEqual(modelPrefixes("Xenova/multilingual-e5-small").document, "passage: ");
  assert.match(modelPrefixes("BAAI/bge-small-en-v1.5").query, /^Represent this sentence/);
  assert.equal(modelPrefixes("BAAI/bge-small-en-v1.5").document, "");
  assert.deepEqual(modelPrefixes("sentence-transformers/all-MiniLM-L6-v2"), {
    query: "",
    document: "",
  });
  assert.deepEqual(
    modelPrefixes("any", { prompts: { query: "search_query: ", document: "search_document: " } }),
    { query: "search_query: ", document: "search_document: " },
  );
  // Declared prompts win over the family.
  assert.deepEqual(modelPrefixes("intfloat/e5-small", { prompts: { query: "q: " } }), {
    query: "q: ",
    document: "",
  });
});

Deno.test("model dir: a dynamically quantised graph is run one text at a time", async () => {
  await withModel(async () => {}, async (dir) => {
    assert.equal((await readModelDirectory({ dir })).oneAtATime, false);
    const graph = new GraphBuilder("quantised");
    graph.input("x", "float", ["n"]);
    graph.output(graph.node("DynamicQuantizeLinear", ["x"]), "float", ["n"]);
    await Deno.writeFile(`${dir}/model.onnx`, graph.encode(14));
    assert.equal((await readModelDirectory({ dir })).oneAtATime, true);
  });
});
