import assert from "node:assert/strict";
import { DEFAULT_DOWNLOAD } from "@svc/onnx-embedder/settings";
import { type Reranker, silentLogger, SvcError } from "@svc/relayer/kit";
import { TEST_MODELS_DIR } from "../tests/relayer_process.ts";
import { openBackends, readConfig } from "./mod.ts";
import { embedderSetting, previousEmbedderConfig } from "./vector_index.ts";
import { startFakeModelServer } from "../tests/fakes/model_server.ts";
import { configOf, holdOne } from "../tests/compose_fixtures.ts";

Deno.test("configuration: SVC_REINDEX and SVC_REINDEX_RATE", () => {
  const { embedders: _, ...reindex } = configOf({}).reindex;
  assert.deepEqual(reindex, {
    enabled: false,
    keepIndexEmbedder: true,
    ratePerSecond: 0,
    modelsDir: "./data/models",
  });
  const { embedders, ...set } = configOf({
    SVC_REINDEX: "1",
    SVC_REINDEX_RATE: "250",
    SVC_MODELS_DIR: "/m",
    SVC_EMBEDDER: "local",
  }).reindex;
  assert.deepEqual(set, {
    enabled: true,
    keepIndexEmbedder: false,
    ratePerSecond: 250,
    modelsDir: "/m",
  });
  assert.deepEqual(embedders.local, { modelsDir: "/m" }, "each plugin's settings, for a reindex");
  const unset = readConfig({ SVC_REINDEX: "1" });
  assert.ok(!unset.ok && unset.problems.some((p) => /SVC_REINDEX=1 needs SVC_EMBEDDER/.test(p)));
  const bad = readConfig({ SVC_REINDEX: "yes", SVC_REINDEX_RATE: "-1" });
  assert.ok(!bad.ok);
  assert.ok(bad.problems.some((p) => p.startsWith("SVC_REINDEX ")), bad.problems.join("; "));
  assert.ok(bad.problems.some((p) => p.startsWith("SVC_REINDEX_RATE")), bad.problems.join("; "));
});

Deno.test("the previous embedder is told by the model id the index recorded", () => {
  const config = configOf({
    SVC_MODELS_DIR: "/models",
    SVC_LLM: "openai",
    OPENAI_BASE_URL: "http://127.0.0.1:1234/v1",
    OLLAMA_HOST: "http://10.0.0.2:11434",
  });
  assert.deepEqual(previousEmbedderConfig("svc-glove100-sif-oov28-v1", config), {
    kind: "local",
    settings: { modelsDir: "/models" },
    modelsDir: "/models",
  });
  assert.deepEqual(previousEmbedderConfig("svc-lexical-hash-v1-384", config), {
    kind: "lexical",
    settings: {},
    modelsDir: "/models",
  });
  // The Ollama host and the OpenAI-compatible API come from the settings of the language model.
  assert.deepEqual(previousEmbedderConfig("openai:text-embedding-3-small", config), {
    kind: "openai",
    settings: {
      model: "text-embedding-3-small",
      timeoutMs: 60_000,
      apiKey: undefined,
      baseURL: "http://127.0.0.1:1234/v1",
    },
    modelsDir: "/models",
  });
  assert.deepEqual(previousEmbedderConfig("ollama:nomic-embed-text", config), {
    kind: "ollama",
    settings: { model: "nomic-embed-text", timeoutMs: 60_000, host: "http://10.0.0.2:11434" },
    modelsDir: "/models",
  });
  // A hub model opens from its download in the models directory.
  const hub = previousEmbedderConfig(
    "onnx:sentence-transformers/all-MiniLM-L6-v2:0123456789abcdef",
    config,
  );
  assert.deepEqual(hub, {
    kind: "onnx",
    modelsDir: "/models",
    settings: {
      model: "sentence-transformers/all-MiniLM-L6-v2",
      revision: "main",
      modelsDir: "/models",
      endpoint: "https://huggingface.co",
      batchSize: 32,
      threads: 0,
      download: DEFAULT_DOWNLOAD,
    },
  });
  // A model directory's name says nothing of where it is.
  assert.equal(previousEmbedderConfig("onnx:my-model:0123456789abcdef", config), undefined);
  assert.equal(previousEmbedderConfig("svc-lexical-hash-v1-512", config), undefined);
  assert.equal(previousEmbedderConfig("someone-else:model", config), undefined);
  // Without settings for an OpenAI-compatible API, it cannot be reached.
  assert.equal(previousEmbedderConfig("openai:text-embedding-3-small", configOf({})), undefined);
});

/** Indexes one memory in the backends' index, as a remember would. */

Deno.test("composition: another embedder is refused with both fixes named, then reindexed with SVC_REINDEX=1; a second opener is refused", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-compose-reindex-" });
  const env = { SVC_DATA_DIR: dataDir, SVC_MODELS_DIR: TEST_MODELS_DIR };
  try {
    const first = await openBackends(configOf({ ...env, SVC_EMBEDDER: "lexical" }), silentLogger);
    await assert.rejects(
      openBackends(configOf({ ...env, SVC_EMBEDDER: "lexical" }), silentLogger),
      (error) =>
        error instanceof SvcError && /another process holds/.test(error.message) &&
        !/SVC_REINDEX/.test(error.message),
    );
    await holdOne(first);
    await first.close();

    await assert.rejects(
      openBackends(configOf({ ...env, SVC_EMBEDDER: "local" }), silentLogger),
      (error) =>
        error instanceof SvcError && error.code === "conflict" &&
        /"svc-lexical-hash-v1-384" \(384 dimensions\)/.test(error.message) &&
        error.message.includes("SVC_EMBEDDER=local SVC_REINDEX=1") &&
        error.message.includes("svc reindex --embedder local`"),
    );
    const serving = await openBackends(
      configOf({ ...env, SVC_EMBEDDER: "local", SVC_REINDEX: "1" }),
      silentLogger,
    );
    try {
      assert.ok(serving.reindex, "a reindex to run");
      // Until it ends, the relayer serves from the old index with the old embedder.
      assert.equal(serving.relayer.embedder.model, "svc-lexical-hash-v1-384");
      assert.equal(serving.relayer.vectors.dimensions, 384);
      assert.equal(await serving.relayer.vectors.count(), 1);
      // And with the old embedder's re-ranker (the lexical one has none), then the new one's.
      const reranker = serving.relayer.reranker as () => Reranker | undefined;
      assert.equal(reranker(), undefined);
      await serving.reindex!.reindexer.run();
      assert.match(serving.relayer.embedder.model, /glove/i);
      assert.ok(reranker(), "the GloVe re-ranker of the local embedder");
    } finally {
      await serving.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("composition: SVC_REINDEX=1 with the index's embedder down points to svc reindex", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-compose-reindex-down-" });
  await using model = startFakeModelServer("ollama");
  const env = {
    SVC_DATA_DIR: dataDir,
    SVC_MODELS_DIR: TEST_MODELS_DIR,
    OLLAMA_HOST: model.url,
    SVC_EMBED_MODEL: "emb",
  };
  try {
    const first = await openBackends(configOf({ ...env, SVC_EMBEDDER: "ollama" }), silentLogger);
    await holdOne(first);
    await first.close();
    model.fail(404, 10);
    await assert.rejects(
      openBackends(configOf({ ...env, SVC_EMBEDDER: "lexical", SVC_REINDEX: "1" }), silentLogger),
      (error) =>
        error instanceof SvcError && error.code === "backend_unavailable" &&
        /^Cannot reindex while serving: .*"ollama:emb".*HTTP 404/.test(error.message) &&
        error.message.includes("deno task svc reindex --embedder lexical"),
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("composition: with SVC_EMBEDDER unset, an index built by another embedder keeps it", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-compose-keep-" });
  const env = { SVC_DATA_DIR: dataDir, SVC_MODELS_DIR: TEST_MODELS_DIR };
  try {
    const first = await openBackends(configOf({ ...env, SVC_EMBEDDER: "lexical" }), silentLogger);
    await holdOne(first);
    await first.close();
    const kept = await openBackends(configOf(env), silentLogger);
    try {
      assert.equal(kept.relayer.embedder.model, "svc-lexical-hash-v1-384");
      assert.equal(kept.relayer.vectors.dimensions, 384);
      assert.equal(kept.relayer.reranker, undefined, "the lexical embedder's own: none");
      assert.equal(kept.reindex, undefined);
    } finally {
      await kept.close();
    }
    // Set explicitly, another embedder is still refused.
    await assert.rejects(
      openBackends(configOf({ ...env, SVC_EMBEDDER: "local" }), silentLogger),
      (error) => error instanceof SvcError && error.code === "conflict",
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("composition: an index that holds no memory gives way to the embedder SVC_EMBEDDER sets", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-compose-empty-" });
  const env = { SVC_DATA_DIR: dataDir, SVC_MODELS_DIR: TEST_MODELS_DIR };
  try {
    await (await openBackends(configOf({ ...env, SVC_EMBEDDER: "lexical" }), silentLogger)).close();
    // Unset, the index's own embedder is kept, as for an index that holds memories.
    const kept = await openBackends(configOf(env), silentLogger);
    assert.equal(kept.relayer.embedder.model, "svc-lexical-hash-v1-384");
    await kept.close();
    const switched = await openBackends(configOf({ ...env, SVC_EMBEDDER: "local" }), silentLogger);
    try {
      assert.equal(switched.reindex, undefined, "nothing to embed again");
      assert.equal(switched.relayer.vectors.dimensions, switched.relayer.embedder.dimensions);
      assert.match(switched.relayer.embedder.model, /^svc-glove/);
      await holdOne(switched);
    } finally {
      await switched.close();
    }
    // From then on the index is the new embedder's.
    const again = await openBackends(configOf({ ...env, SVC_EMBEDDER: "local" }), silentLogger);
    try {
      assert.equal(await again.relayer.vectors.count(), 1);
    } finally {
      await again.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("composition: a refusal names the setting of the index's remote embedder, and a model that changed size under its name", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-compose-named-" });
  await using model = startFakeModelServer("openai", { dimensions: 64 });
  const env = {
    SVC_DATA_DIR: dataDir,
    SVC_MODELS_DIR: TEST_MODELS_DIR,
    OPENAI_BASE_URL: `${model.url}/v1`,
    SVC_EMBED_MODEL: "emb",
  };
  try {
    const first = await openBackends(configOf({ ...env, SVC_EMBEDDER: "openai" }), silentLogger);
    await holdOne(first);
    await first.close();
    // Without SVC_LLM=openai the API is not one this relayer reaches: still, the setting is named.
    await assert.rejects(
      openBackends(configOf({ ...env, SVC_EMBEDDER: "local" }), silentLogger),
      (error) =>
        error instanceof SvcError &&
        error.message.includes("the original embedder (SVC_EMBEDDER=openai SVC_EMBED_MODEL=emb)"),
    );
    model.dimensions = 32;
    await assert.rejects(
      openBackends(configOf({ ...env, SVC_EMBEDDER: "openai" }), silentLogger),
      (error) =>
        error instanceof SvcError && error.code === "conflict" &&
        /at 64 dimensions, but "openai:emb" now makes vectors of 32/.test(error.message) &&
        error.message.includes("svc reindex --embedder openai") &&
        !error.message.includes("configure the original embedder"),
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("composition: the setting named for an ONNX index keeps its name: the hub id, else the directory's", () => {
  const config = configOf({ SVC_DATA_DIR: "/nonexistent-svc-data" });
  const digest = "0123456789abcdef";
  assert.equal(
    embedderSetting(`onnx:sentence-transformers/all-MiniLM-L6-v2:${digest}`, config),
    "SVC_EMBEDDER=onnx with SVC_ONNX_MODEL=sentence-transformers/all-MiniLM-L6-v2 (beside " +
      "SVC_ONNX_MODEL_DIR for a model directory), and the same SVC_ONNX_POOLING and prefixes",
  );
  assert.equal(
    embedderSetting(`onnx:my-minilm:${digest}`, config),
    "SVC_EMBEDDER=onnx with SVC_ONNX_MODEL_DIR naming a directory called my-minilm (or " +
      "SVC_ONNX_MODEL=my-minilm), and the same SVC_ONNX_POOLING and prefixes",
  );
});
