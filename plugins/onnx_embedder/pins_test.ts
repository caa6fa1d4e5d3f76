import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { SvcError } from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";
import { hubModelDir, MANIFEST, openHubModel } from "./hub.ts";
import { capture, fakeHub, pinsOf, tinyRepository, withModelsDir } from "./testing/fake_hub.ts";
import { PINS_FILE, RELEASE_PINS } from "./pins.ts";
import { sha256File } from "./model_dir.ts";

const MODEL = "svc/tiny-encoder";

/** The tiny repository with its graph's last byte changed: another graph, listed as its own. */
async function otherRepository() {
  const files = await tinyRepository();
  const graph = files.get("onnx/model.onnx")!;
  files.set("onnx/model.onnx", graph.map((b, i) => i === graph.length - 1 ? b ^ 1 : b));
  return files;
}

/** Runs `open` against a fake hub serving `files`; closes the hub. */
async function against<T>(
  files: Map<string, Uint8Array<ArrayBuffer>>,
  open: (endpoint: string, requests: string[]) => Promise<T>,
): Promise<T> {
  const hub = fakeHub({ model: MODEL, files });
  try {
    return await open(hub.endpoint, hub.requests);
  } finally {
    await hub.close();
  }
}

Deno.test("pins: a pinned model's bytes that differ are refused whatever the hub lists; nothing is recorded", async () => {
  await withModelsDir(async (modelsDir) => {
    const pins = { [MODEL]: pinsOf(await tinyRepository()) };
    const error = await against(
      await otherRepository(),
      (endpoint) =>
        openHubModel({ model: MODEL, endpoint, modelsDir, pins }).catch((error) => error),
    );
    assert.ok(error instanceof SvcError);
    assert.match(
      error.message,
      /^Cannot use the ONNX model "svc\/tiny-encoder" from the hub at \S+: onnx\/model\.onnx has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} this release pins; the download is refused$/,
    );
    const dir = hubModelDir(modelsDir, MODEL);
    assert.equal(await pathExists(`${dir}/${MANIFEST}`), false);
    assert.equal(await pathExists(`${dir}/${PINS_FILE}`), false);
    assert.equal(await pathExists(`${dir}/onnx/model.onnx`), false);
    // A listing whose size differs is refused before anything is fetched.
    const files = await tinyRepository();
    files.set("config.json", new TextEncoder().encode('{"model_type":"bert"}'));
    const fetched = await against(files, async (endpoint, requests) => {
      await assert.rejects(
        openHubModel({ model: MODEL, endpoint, modelsDir, pins }),
        /the hub lists config\.json with 21 bytes, not the \d+ this release pins; the download is refused$/,
      );
      return requests.filter((r) => r.includes("/resolve/"));
    });
    assert.deepEqual(fetched, []);
  });
});

Deno.test("pins: a download from before the pins that differs from them is downloaded again", async () => {
  await withModelsDir(async (modelsDir) => {
    const other = await otherRepository();
    // Downloaded unpinned, from a hub serving another graph.
    await against(other, (endpoint) => openHubModel({ model: MODEL, endpoint, modelsDir }));
    const pins = { [MODEL]: pinsOf(await tinyRepository()) };
    const { lines, logger } = capture();
    await against(other, (endpoint) =>
      assert.rejects(
        openHubModel({ model: MODEL, endpoint, modelsDir, pins, logger }),
        /onnx\/model\.onnx has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} this release pins/,
      ));
    assert.ok(
      lines.some((line) =>
        line.msg === "the downloaded model is not the one this release pins; downloading again"
      ),
    );
    const model = await against(
      await tinyRepository(),
      (endpoint) => openHubModel({ model: MODEL, endpoint, modelsDir, pins }),
    );
    assert.equal(model.digests["onnx/model.onnx"], pins[MODEL]["onnx/model.onnx"].sha256);
  });
});

Deno.test("pins: another model is pinned at its first download, announced as not verified; a later download must match", async () => {
  await withModelsDir(async (modelsDir) => {
    const dir = hubModelDir(modelsDir, MODEL);
    const { lines, logger } = capture();
    await against(
      await tinyRepository(),
      (endpoint) => openHubModel({ model: MODEL, endpoint, modelsDir, pins: {}, logger }),
    );
    const warning = lines.find((line) => line.level === "warn");
    assert.match(String(warning?.msg), /^this model is not verified by this release: /);
    const record = JSON.parse(await Deno.readTextFile(`${dir}/${PINS_FILE}`));
    assert.equal(record.model, MODEL);
    assert.equal(
      record.files["onnx/model.onnx"].sha256,
      await sha256File(`${dir}/onnx/model.onnx`),
    );
    // The graph damaged, and the download record gone: the next download must match the pins.
    await Deno.writeTextFile(`${dir}/onnx/model.onnx`, "damaged");
    await Deno.remove(`${dir}/${MANIFEST}`);
    await against(await otherRepository(), (endpoint) =>
      assert.rejects(
        openHubModel({ model: MODEL, endpoint, modelsDir, pins: {} }),
        /onnx\/model\.onnx has SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} pinned at the model's first download; the download is refused$/,
      ));
    // The same files again are accepted.
    await against(
      await tinyRepository(),
      (endpoint) => openHubModel({ model: MODEL, endpoint, modelsDir, pins: {} }),
    );
    assert.equal(await pathExists(`${dir}/${MANIFEST}`), true);
  });
});

const MODELS_DIR = Deno.env.get("SVC_TEST_MODELS_DIR") ??
  new URL("../../models", import.meta.url).pathname;
const MINILM = `${MODELS_DIR}/all-MiniLM-L6-v2`;
const fetched = await pathExists(`${MINILM}/tokenizer.json`);

Deno.test({
  name: "pins: the recommended model's small files are the ones tests/models/fetch.py fetches" +
    (fetched ? "" : ` (skipped: no ${MINILM}; run python3 tests/models/fetch.py)`),
  ignore: !fetched,
  async fn() {
    const pins = RELEASE_PINS["sentence-transformers/all-MiniLM-L6-v2"];
    for (const [path, pin] of Object.entries(pins)) {
      if (path === "onnx/model.onnx") continue; // fetch.py's graph is Xenova's export
      const bytes = await Deno.readFile(`${MINILM}/${path}`);
      assert.deepEqual(
        { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") },
        pin,
        path,
      );
    }
  },
});
