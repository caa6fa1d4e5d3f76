import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { hubModelDir, MANIFEST, openHubModel } from "./hub.ts";
import {
  fakeHub,
  type FakeHubOptions,
  tinyRepository,
  trickle,
  withModelsDir,
} from "./testing/fake_hub.ts";

const MODEL = "svc/tiny-encoder";
const GIB = 1024 * 1024 * 1024;

/** What `openHubModel` rejects with against a fake hub, and the files the hub was asked for. */
async function refusal(
  modelsDir: string,
  hubOptions: Partial<FakeHubOptions>,
  limits: Parameters<typeof openHubModel>[0] extends infer O ? Partial<O> : never,
) {
  const hub = fakeHub({ model: MODEL, files: await tinyRepository(), ...hubOptions });
  try {
    const error = await openHubModel({
      model: MODEL,
      endpoint: hub.endpoint,
      modelsDir,
      ...limits,
    }).then(() => undefined, (error) => error);
    assert.ok(error instanceof SvcError, `refused: ${error}`);
    return { message: error.message, fetched: hub.requests.filter((r) => r.includes("/resolve/")) };
  } finally {
    await hub.close();
  }
}

async function assertNothingKept(modelsDir: string) {
  const names: string[] = [];
  for await (const entry of Deno.readDir(hubModelDir(modelsDir, MODEL))) names.push(entry.name);
  assert.ok(!names.includes(MANIFEST), "no record of a finished download");
  assert.ok(!names.some((name) => name.startsWith(".partial-")), `no partial file: ${names}`);
}

Deno.test("download limits: a listing past the size cap is refused before any file is fetched", async () => {
  await withModelsDir(async (modelsDir) => {
    const huge = await refusal(modelsDir, {
      listedSize: (path, size) => path === "onnx/model.onnx" ? 20 * GIB : size,
    }, {});
    assert.match(
      huge.message,
      /the hub lists onnx\/model\.onnx at 20480 MB, past the 1024 MB a model download may hold \(SVC_MODEL_DOWNLOAD_MAX_MB\)/,
    );
    assert.deepEqual(huge.fetched, []);
    // Each file under the cap, all of them past it.
    const sizes = [...(await tinyRepository())].filter(([path]) => !/README|safetensors/.test(path))
      .map(([, bytes]) => bytes.length);
    const all = await refusal(modelsDir, {}, { maxBytes: Math.max(...sizes) });
    assert.match(
      all.message,
      /the files listed hold [\d.]+ MB, past the [\d.]+ MB a model download/,
    );
    assert.deepEqual(all.fetched, []);
  });
});

Deno.test("download limits: a download larger than the disk's free space is refused before it starts", async () => {
  await withModelsDir(async (modelsDir) => {
    const measured: string[] = [];
    const { message, fetched } = await refusal(modelsDir, {}, {
      freeBytes: (path) => {
        measured.push(path);
        return Promise.resolve(10 * 1024 * 1024);
      },
    });
    const dir = hubModelDir(modelsDir, MODEL);
    assert.deepEqual(measured, [dir]);
    assert.ok(message.includes(`the disk holding ${dir} has 10 MB free`), message);
    assert.match(message, /the download needs [\d.]+ MB and 64 MB spare/);
    assert.deepEqual(fetched, []);
  });
});

Deno.test("download limits: a file longer than the listing says is cut off at the listed size", async () => {
  await withModelsDir(async (modelsDir) => {
    const { message } = await refusal(modelsDir, {
      listedSize: (path, size) => path === "config.json" ? 10 : size,
    }, {});
    assert.match(message, /config\.json is longer than the 10 bytes expected/);
    await assertNothingKept(modelsDir);
  });
});

Deno.test("download limits: a hub that sends a byte at a time is given up at the total time limit", async () => {
  await withModelsDir(async (modelsDir) => {
    // Never silent for the stall limit; the graph alone would take minutes at this pace.
    const { message } = await refusal(modelsDir, {
      serve: (path, bytes) => path === "onnx/model.onnx" ? trickle(bytes, 20) : bytes,
    }, { timeoutMs: 300, stallMs: 5_000 });
    assert.match(
      message,
      /: the download took longer than 0\.3 seconds \(SVC_MODEL_DOWNLOAD_TIMEOUT_S\)\. Where this machine/,
    );
    await assertNothingKept(modelsDir);
  });
});

Deno.test("download limits: a listing that never ends is refused past its bound", async () => {
  await withModelsDir(async (modelsDir) => {
    const endless = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
      const chunk = new Uint8Array(1024 * 1024).fill(32);
      return new Response(
        new ReadableStream({ pull: (controller) => controller.enqueue(chunk) }),
        { headers: { "content-type": "application/json" } },
      );
    });
    try {
      await assert.rejects(
        openHubModel({
          model: MODEL,
          endpoint: `http://127.0.0.1:${endless.addr.port}`,
          modelsDir,
        }),
        /the hub's listing passes 16 MB/,
      );
    } finally {
      await endless.shutdown();
    }
  });
});
