/**
 * The relayer process with `SVC_EMBEDDER=onnx` on the tiny model the tests build: the
 * composition loads it, the API remembers and recalls with it, and a missing model stops the
 * start with a message that names the directory.
 */
import assert from "node:assert/strict";
import { writeTinyModel } from "../../plugins/onnx_embedder/testing/tiny_model.ts";
import { fakeHub, tinyRepository } from "../../plugins/onnx_embedder/testing/fake_hub.ts";
import { RECOMMENDED_ONNX_MODEL } from "../../plugins/onnx_embedder/settings.ts";
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

Deno.test("onnx e2e: a new data directory started without SVC_EMBEDDER refuses a hub serving other files under the recommended id, and serves use", async () => {
  // The download that matches the release's pins is tested in-process (default_embedder_test.ts,
  // with the tiny model's pins): the real graph is not served here.
  const dataDir = await Deno.makeTempDir({ prefix: "svc-onnx-e2e-" });
  const hub = fakeHub({ model: RECOMMENDED_ONNX_MODEL, files: await tinyRepository() });
  try {
    await linkTestModels(`${dataDir}/models`);
    const env = {
      SVC_EMBEDDER: "",
      SVC_HF_ENDPOINT: hub.endpoint,
      SVC_MODELS_DIR: `${dataDir}/models`,
    };
    const health = async (url: string) => (await (await fetch(`${url}/health`)).json());
    await using relayer = await startRelayer(dataDir, env);
    assert.equal((await health(relayer.url)).backends.embedder, "svc-use-lite-512-v1");
    assert.match(relayer.log(), /the recommended model could not be downloaded: serving with use/);
    assert.match(relayer.log(), /this release pins; the download is refused/);
    assert.doesNotMatch(relayer.log(), /"msg":"model downloaded"/);
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
