import assert from "node:assert/strict";
import { SettingsReader } from "@svc/relayer/kit";
import { readOnnxSettings } from "./settings.ts";

function read(env: Record<string, string>) {
  const reader = new SettingsReader(env);
  const settings = readOnnxSettings(reader, "/data/models");
  return { settings, problems: reader.problems };
}

Deno.test("onnx settings: a directory or a hub id, with defaults", () => {
  const { settings, problems } = read({ SVC_ONNX_MODEL_DIR: "/models/minilm" });
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    modelDir: "/models/minilm",
    model: undefined,
    revision: "main",
    modelsDir: "/data/models",
    endpoint: "https://huggingface.co",
    batchSize: 32,
    threads: 0,
    pooling: undefined,
    queryPrefix: undefined,
    documentPrefix: undefined,
    download: { timeoutMs: 600_000, stallMs: 30_000, maxBytes: 1024 * 1024 * 1024 },
  });
  const hub = read({
    SVC_ONNX_MODEL: "BAAI/bge-small-en-v1.5",
    SVC_ONNX_REVISION: "v1.0",
    SVC_HF_ENDPOINT: "http://127.0.0.1:8765/",
    SVC_ONNX_BATCH: "8",
    SVC_ONNX_THREADS: "2",
    SVC_ONNX_POOLING: "cls",
    SVC_ONNX_QUERY_PREFIX: "query: ",
  });
  assert.deepEqual(hub.problems, []);
  assert.equal(hub.settings.model, "BAAI/bge-small-en-v1.5");
  assert.equal(hub.settings.endpoint, "http://127.0.0.1:8765");
  assert.deepEqual(
    [hub.settings.revision, hub.settings.batchSize, hub.settings.threads, hub.settings.pooling],
    ["v1.0", 8, 2, ["cls"]],
  );
  assert.equal(hub.settings.queryPrefix, "query: ");
  const limited = read({
    SVC_ONNX_MODEL: "x/y",
    SVC_MODEL_DOWNLOAD_TIMEOUT_S: "120",
    SVC_MODEL_DOWNLOAD_STALL_S: "5",
    SVC_MODEL_DOWNLOAD_MAX_MB: "200",
  });
  assert.deepEqual(limited.problems, []);
  assert.deepEqual(limited.settings.download, {
    timeoutMs: 120_000,
    stallMs: 5_000,
    maxBytes: 200 * 1024 * 1024,
  });
  assert.equal(
    read({ SVC_ONNX_MODEL: "x/y", HF_ENDPOINT: "https://mirror.example" })
      .settings.endpoint,
    "https://mirror.example",
  );
});

Deno.test("onnx settings: every problem is named", () => {
  assert.deepEqual(read({}).problems, [
    "SVC_EMBEDDER=onnx needs SVC_ONNX_MODEL_DIR (a model directory) or SVC_ONNX_MODEL " +
    "(a hub model id, downloaded into SVC_MODELS_DIR on first start)",
  ]);
  const { problems } = read({
    SVC_ONNX_MODEL: "../../etc",
    SVC_ONNX_REVISION: "a/../b",
    SVC_HF_ENDPOINT: "ftp://hub",
    SVC_ONNX_BATCH: "0",
    SVC_ONNX_POOLING: "mean,average",
  });
  assert.equal(problems.length, 5, problems.join("\n"));
  for (const name of ["SVC_ONNX_MODEL", "SVC_ONNX_REVISION", "SVC_HF_ENDPOINT", "SVC_ONNX_BATCH"]) {
    assert.ok(problems.some((p) => p.startsWith(`${name} must`)), name);
  }
  assert.ok(problems.some((p) => p.includes("SVC_ONNX_POOLING must list pooling modes")));
});

Deno.test("onnx settings: a hub address with credentials or a query is refused, never shown", () => {
  for (
    const [name, value] of [
      ["SVC_HF_ENDPOINT", "http://user:hfpass123@127.0.0.1:8765/"],
      ["SVC_HF_ENDPOINT", "https://mirror.example/?token=abc"],
      ["HF_ENDPOINT", "https://mirror.example/#abc"],
    ]
  ) {
    const { problems } = read({ SVC_ONNX_MODEL: "x/y", [name]: value });
    assert.deepEqual(problems, [
      `${name} must be the hub's address alone, without a user, password, query or fragment ` +
      "(the model's paths are added to it)",
    ]);
  }
});
