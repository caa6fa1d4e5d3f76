/**
 * The relayer process with `SVC_EMBEDDER=onnx` on the tiny model the tests build: the
 * composition loads it, the API remembers and recalls with it, and a missing model stops the
 * start with a message that names the directory.
 */
import assert from "node:assert/strict";
import { writeTinyModel } from "../../plugins/onnx_embedder/tiny_model.ts";
import { fakeHub, tinyRepository } from "../../plugins/onnx_embedder/fake_hub.ts";
import { RECOMMENDED_ONNX_MODEL } from "../../plugins/onnx_embedder/settings.ts";
import { SvcClient } from "../../src/client/mod.ts";
import { taskCommand } from "../task_flags.ts";
import {
  freePort,
  jobIdOf,
  linkTestModels,
  newAccountClient,
  ROOT,
  startRelayer,
} from "../relayer_process.ts";

Deno.test("onnx e2e: a relayer on an ONNX model remembers and recalls through the API", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-onnx-e2e-" });
  const modelDir = `${dataDir}-model`;
  try {
    await Deno.mkdir(modelDir);
    await writeTinyModel(modelDir);
    await using relayer = await startRelayer(dataDir, {
      SVC_EMBEDDER: "onnx",
      SVC_ONNX_MODEL_DIR: modelDir,
    });
    const health = await (await fetch(`${relayer.url}/health`)).json();
    assert.match(health.backends.embedder, /^onnx:svc-onnx-e2e-\w+-model:[0-9a-f]{16}$/);
    assert.match(relayer.log(), /"msg":"onnx embedder loaded"/);
    const { client } = await newAccountClient(dataDir, relayer.url);
    const facts = ["My dog is called Rex", "Quarterly tax filing deadline", "I drink tea"];
    const jobs = [];
    for (const text of facts) jobs.push(jobIdOf(await client.remember(text)));
    for (const id of jobs) assert.equal((await client.waitForJob(id)).status, "done");
    const { results } = await client.recall("what is my dog called", { limit: 1 });
    assert.equal(results[0]?.text, "My dog is called Rex");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(modelDir, { recursive: true }).catch(() => {});
  }
});

Deno.test("onnx e2e: a new data directory started without SVC_EMBEDDER downloads the recommended model where the hub answers, and keeps it", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-onnx-e2e-" });
  const hub = fakeHub({ model: RECOMMENDED_ONNX_MODEL, files: await tinyRepository() });
  try {
    await linkTestModels(`${dataDir}/models`);
    const env = {
      SVC_EMBEDDER: "",
      SVC_HF_ENDPOINT: hub.endpoint,
      SVC_MODELS_DIR: `${dataDir}/models`,
    };
    const model = new RegExp(`^onnx:${RECOMMENDED_ONNX_MODEL}:[0-9a-f]{16}$`);
    const health = async (url: string) => (await (await fetch(`${url}/health`)).json());
    let keys;
    {
      await using relayer = await startRelayer(dataDir, env);
      assert.match((await health(relayer.url)).backends.embedder, model);
      assert.match(relayer.log(), /downloading the recommended model once/);
      assert.match(relayer.log(), /"msg":"model downloaded"/);
      const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
      keys = { privateKey, accountId };
      const jobId = jobIdOf(await client.remember("My dog is called Rex"));
      assert.equal((await client.waitForJob(jobId)).status, "done");
    }
    await hub.close();
    // The hub is gone: the next start serves the same model from its download.
    await using again = await startRelayer(dataDir, env);
    assert.match((await health(again.url)).backends.embedder, model);
    const client = await SvcClient.create({ ...keys, baseUrl: again.url });
    const { results } = await client.recall("what is my dog called", { limit: 1 });
    assert.equal(results[0]?.text, "My dog is called Rex");
  } finally {
    await hub.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

/** Runs `main.ts` expecting it to refuse to start; returns its stderr. */
async function refusedStart(env: Record<string, string>): Promise<string> {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-onnx-e2e-" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: taskCommand("start"),
      env: {
        SVC_DATA_DIR: dataDir,
        SVC_PORT: "0",
        SVC_DASHBOARD_PORT: "0",
        SIDECAR_URL: `http://127.0.0.1:${freePort()}`,
        SVC_EMBEDDER: "onnx",
        ...env,
      },
      cwd: ROOT,
      stdout: "null",
    }).output();
    assert.equal(code, 1);
    return new TextDecoder().decode(stderr);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("onnx e2e: a missing model, or one the hub cannot give, stops the start clearly", async () => {
  const missing = await refusedStart({ SVC_ONNX_MODEL_DIR: "/nonexistent/minilm" });
  assert.match(
    missing,
    /svc: cannot start: Cannot load the ONNX model from \/nonexistent\/minilm: the directory does not exist/,
  );
  const modelsDir = await Deno.makeTempDir({ prefix: "svc-onnx-models-" });
  try {
    const offline = await refusedStart({
      SVC_ONNX_MODEL: "sentence-transformers/all-MiniLM-L6-v2",
      SVC_MODELS_DIR: modelsDir,
      SVC_HF_ENDPOINT: `http://127.0.0.1:${freePort()}`,
    });
    const dir = `${modelsDir}/onnx/sentence-transformers--all-MiniLM-L6-v2`;
    assert.match(offline, /svc: cannot start: Cannot download the ONNX model /);
    assert.ok(offline.includes(`SVC_ONNX_MODEL_DIR=${dir}`), offline);
    assert.match(offline, /or start with SVC_EMBEDDER=use, which needs no download/);
  } finally {
    await Deno.remove(modelsDir, { recursive: true });
  }
});
