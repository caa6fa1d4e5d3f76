/**
 * The embedder of a relayer started without `SVC_EMBEDDER`: chosen once per data directory, with
 * a local server speaking the model hub's protocol (the tiny model under the recommended id).
 */
import assert from "node:assert/strict";
import { fakeHub, tinyRepository } from "../plugins/onnx_embedder/fake_hub.ts";
import { RECOMMENDED_ONNX_MODEL } from "../plugins/onnx_embedder/settings.ts";
import { createLogger } from "../src/log.ts";
import { readConfig } from "../app/config.ts";
import { EMBEDDER_RECORD, holdsNothingYet, openChosenEmbedder } from "../app/default_embedder.ts";
import { linkTestModels } from "./relayer_process.ts";

/** Opens the embedder a relayer started with `env` in `dataDir` would; what it logged. */
async function opened(dataDir: string, env: Record<string, string>, fresh: boolean) {
  const result = readConfig({ SVC_DATA_DIR: dataDir, ...env });
  assert.ok(result.ok, JSON.stringify(result));
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const { embedder, close } = await openChosenEmbedder(
    result.config.embedder,
    dataDir,
    fresh,
    logger,
  );
  await close?.();
  return { model: embedder.model, lines };
}

async function recorded(dataDir: string) {
  return JSON.parse(await Deno.readTextFile(`${dataDir}/${EMBEDDER_RECORD}`));
}

/** A data directory whose models directory holds what the tests converted (`linkTestModels`). */
async function withDataDir(run: (dataDir: string) => Promise<void>) {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-default-embedder-" });
  try {
    await linkTestModels(`${dataDir}/models`);
    await run(dataDir);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("default embedder: a new data directory downloads the recommended model where the hub answers, and keeps it offline", async () => {
  await withDataDir(async (dataDir) => {
    const hub = fakeHub({ model: RECOMMENDED_ONNX_MODEL, files: await tinyRepository() });
    const env = { SVC_HF_ENDPOINT: hub.endpoint };
    let first;
    try {
      first = await opened(dataDir, env, true);
    } finally {
      await hub.close();
    }
    assert.match(first.model, new RegExp(`^onnx:${RECOMMENDED_ONNX_MODEL}:[0-9a-f]{16}$`));
    assert.ok(first.lines.some((line) => line.msg === "model downloaded"));
    assert.deepEqual(await recorded(dataDir), { embedder: "onnx" });
    // The hub is gone: the next start opens the same model from its verified download.
    const again = await opened(dataDir, env, false);
    assert.equal(again.model, first.model);
  });
});

Deno.test("default embedder: where the hub does not answer, use, recorded; it stays when the hub comes back", async () => {
  await withDataDir(async (dataDir) => {
    const closed = fakeHub({ model: RECOMMENDED_ONNX_MODEL, files: new Map() });
    await closed.close();
    const first = await opened(dataDir, { SVC_HF_ENDPOINT: closed.endpoint }, true);
    assert.equal(first.model, "svc-use-lite-512-v1");
    assert.ok(first.lines.some((line) => String(line.msg).startsWith("the model hub does not")));
    assert.deepEqual(await recorded(dataDir), { embedder: "use" });
    const hub = fakeHub({ model: RECOMMENDED_ONNX_MODEL, files: await tinyRepository() });
    try {
      const again = await opened(dataDir, { SVC_HF_ENDPOINT: hub.endpoint }, true);
      assert.equal(again.model, "svc-use-lite-512-v1");
      assert.deepEqual(hub.requests, [], "the recorded choice asks nothing of the hub");
    } finally {
      await hub.close();
    }
  });
});

Deno.test("default embedder: a failed download serves use and says how to move later", async () => {
  await withDataDir(async (dataDir) => {
    const hub = fakeHub({
      model: RECOMMENDED_ONNX_MODEL,
      files: await tinyRepository(),
      serve: (path, bytes) => path.endsWith(".onnx") ? bytes.slice(0, 10) : bytes,
    });
    try {
      const { model, lines } = await opened(dataDir, { SVC_HF_ENDPOINT: hub.endpoint }, true);
      assert.equal(model, "svc-use-lite-512-v1");
      const warning = lines.find((line) => line.level === "warn");
      assert.match(String(warning?.msg), /SVC_EMBEDDER=onnx SVC_ONNX_MODEL=.+ SVC_REINDEX=1/);
      assert.deepEqual(await recorded(dataDir), { embedder: "use" });
    } finally {
      await hub.close();
    }
  });
});

Deno.test("default embedder: a data directory from before the record, or a set SVC_EMBEDDER, asks no hub and records nothing", async () => {
  await withDataDir(async (dataDir) => {
    const hub = fakeHub({ model: RECOMMENDED_ONNX_MODEL, files: await tinyRepository() });
    try {
      const older = await opened(dataDir, { SVC_HF_ENDPOINT: hub.endpoint }, false);
      assert.equal(older.model, "svc-use-lite-512-v1");
      const chosen = await opened(dataDir, {
        SVC_HF_ENDPOINT: hub.endpoint,
        SVC_EMBEDDER: "lexical",
      }, true);
      assert.match(chosen.model, /^svc-lexical/);
      assert.deepEqual(hub.requests, []);
      await assert.rejects(Deno.stat(`${dataDir}/${EMBEDDER_RECORD}`), Deno.errors.NotFound);
    } finally {
      await hub.close();
    }
  });
});

Deno.test("default embedder: a damaged record is a clear error that says how to recover", async () => {
  await withDataDir(async (dataDir) => {
    for (const damaged of ["{not json", "null", "", '{"embedder":"gpt"}']) {
      await Deno.writeTextFile(`${dataDir}/${EMBEDDER_RECORD}`, damaged);
      await assert.rejects(
        opened(dataDir, {}, false),
        /^SvcError: Cannot start the relayer: .*embedder\.json names no embedder this relayer knows\. Set SVC_EMBEDDER, or write \{"embedder":"use"\}/,
      );
    }
  });
});

Deno.test("default embedder: a data directory holding a job queue or an index has chosen already", async () => {
  await withDataDir(async (dataDir) => {
    assert.equal(
      await holdsNothingYet(dataDir),
      true,
      "its models directory and key id are not memories",
    );
    for (const held of ["jobs.kv", "index.sqlite", "index.kv", "lancedb"]) {
      await Deno.writeTextFile(`${dataDir}/${held}`, "");
      assert.equal(await holdsNothingYet(dataDir), false, held);
      await Deno.remove(`${dataDir}/${held}`);
    }
  });
});
