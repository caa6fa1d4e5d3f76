/**
 * The embedder of a relayer started without `SVC_EMBEDDER`: chosen once per data directory, with
 * a local server speaking the model hub's protocol (the tiny model under the recommended id).
 */
import assert from "node:assert/strict";
import { fakeHub, pinsOf, tinyRepository } from "../plugins/onnx_embedder/testing/fake_hub.ts";
import type { ReleasePins } from "../plugins/onnx_embedder/pins.ts";
import type { OnnxSettings } from "../plugins/onnx_embedder/settings.ts";
import { hubModelDir, MANIFEST } from "../plugins/onnx_embedder/hub.ts";
import { RECOMMENDED_ONNX_MODEL } from "../plugins/onnx_embedder/settings.ts";
import { createLogger } from "../src/log.ts";
import { readConfig } from "../app/config.ts";
import { EMBEDDER_RECORD, holdsNothingYet, openChosenEmbedder } from "../app/default_embedder.ts";
import { linkTestModels } from "./relayer_process.ts";

/** The tiny model's files, pinned as this release pins the recommended model's. */
async function pinnedTinyRepository() {
  const files = await tinyRepository();
  return { files, pins: { [RECOMMENDED_ONNX_MODEL]: pinsOf(files) } };
}

/**
 * Opens the embedder a relayer started with `env` in `dataDir` would; what it logged. `pins`
 * stand for the release's (the tiny model's, under the recommended id).
 */
async function opened(
  dataDir: string,
  env: Record<string, string>,
  fresh: boolean,
  pins?: ReleasePins,
) {
  const result = readConfig({ SVC_DATA_DIR: dataDir, ...env });
  assert.ok(result.ok, JSON.stringify(result));
  const config = result.config.embedder;
  if (config.kind === "use" && config.recommended) config.recommended.pins = pins;
  if (config.kind === "onnx") (config.settings as OnnxSettings).pins = pins;
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
    const { files, pins } = await pinnedTinyRepository();
    const hub = fakeHub({ model: RECOMMENDED_ONNX_MODEL, files });
    const env = { SVC_HF_ENDPOINT: hub.endpoint };
    let first;
    try {
      first = await opened(dataDir, env, true, pins);
    } finally {
      await hub.close();
    }
    assert.match(first.model, new RegExp(`^onnx:${RECOMMENDED_ONNX_MODEL}:[0-9a-f]{16}$`));
    assert.ok(first.lines.some((line) => line.msg === "model downloaded"));
    assert.deepEqual(await recorded(dataDir), { embedder: "onnx" });
    // The hub is gone: the next start opens the same model from its verified download.
    const again = await opened(dataDir, env, false, pins);
    assert.equal(again.model, first.model);
  });
});

/** The one warning of a start that fell back to `use`, and the reason it gives. */
function fallback(lines: Record<string, unknown>[]) {
  const warnings = lines.filter((line) => line.level === "warn");
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(String(warnings[0].msg), /^the recommended model could not be downloaded: serving/);
  return String(warnings[0].error);
}

Deno.test("default embedder: a hub serving other bytes under the recommended id is refused; use serves and the log says why", async () => {
  await withDataDir(async (dataDir) => {
    const { files, pins } = await pinnedTinyRepository();
    // Another graph, listed with its own digest: the hub's listing agrees with what it sends.
    const other = new Map(files);
    const graph = files.get("onnx/model.onnx")!;
    other.set("onnx/model.onnx", graph.map((b, i) => i === graph.length - 1 ? b ^ 1 : b));
    const hub = fakeHub({ model: RECOMMENDED_ONNX_MODEL, files: other });
    try {
      const { model, lines } = await opened(dataDir, { SVC_HF_ENDPOINT: hub.endpoint }, true, pins);
      assert.equal(model, "svc-use-lite-512-v1");
      assert.match(
        fallback(lines),
        /^Cannot use the ONNX model "sentence-transformers\/all-MiniLM-L6-v2" from the hub at .+: onnx\/model\.onnx has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} this release pins; the download is refused$/,
      );
    } finally {
      await hub.close();
    }
    const dir = hubModelDir(`${dataDir}/models`, RECOMMENDED_ONNX_MODEL);
    await assert.rejects(Deno.stat(`${dir}/${MANIFEST}`), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(`${dir}/onnx/model.onnx`), Deno.errors.NotFound);
    assert.deepEqual(await recorded(dataDir), { embedder: "use" });
  });
});

Deno.test("default embedder: a hub that stalls delays the first start by the stall limit, then use serves", async () => {
  await withDataDir(async (dataDir) => {
    const { files, pins } = await pinnedTinyRepository();
    const hub = fakeHub({
      model: RECOMMENDED_ONNX_MODEL,
      files,
      serve: (path, bytes) =>
        path === "onnx/model.onnx"
          ? new ReadableStream({ start: (c) => c.enqueue(bytes.subarray(0, 8)) })
          : bytes,
    });
    try {
      const env = { SVC_HF_ENDPOINT: hub.endpoint, SVC_MODEL_DOWNLOAD_STALL_S: "1" };
      const { model, lines } = await opened(dataDir, env, true, pins);
      assert.equal(model, "svc-use-lite-512-v1");
      assert.match(fallback(lines), /the hub sent nothing for 1 seconds/);
    } finally {
      await hub.close();
    }
  });
});

Deno.test("default embedder: SVC_EMBEDDER=onnx with a download past its limits fails the start, saying which", async () => {
  await withDataDir(async (dataDir) => {
    const model = "svc/tiny-encoder";
    const hub = fakeHub({
      model,
      files: await tinyRepository(),
      listedSize: (path, size) => path.endsWith(".onnx") ? 2 ** 21 : size,
    });
    try {
      const env = {
        SVC_HF_ENDPOINT: hub.endpoint,
        SVC_EMBEDDER: "onnx",
        SVC_ONNX_MODEL: model,
        SVC_MODEL_DOWNLOAD_MAX_MB: "1",
      };
      await assert.rejects(
        opened(dataDir, env, true),
        /Cannot download the ONNX model .+: the hub lists onnx\/model\.onnx at 2 MB, past the 1 MB a model download may hold \(SVC_MODEL_DOWNLOAD_MAX_MB\)/,
      );
      assert.deepEqual(hub.requests.filter((r) => r.includes("/resolve/")), []);
    } finally {
      await hub.close();
    }
    await assert.rejects(Deno.stat(`${dataDir}/${EMBEDDER_RECORD}`), Deno.errors.NotFound);
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
