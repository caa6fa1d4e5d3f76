import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { SvcError } from "@svc/relayer/kit";
import { OnnxEmbedder } from "./mod.ts";
import { hubModelDir, MANIFEST, openHubModel } from "./hub.ts";
import {
  capture,
  COMMIT,
  fakeHub,
  type FakeHubOptions,
  tinyRepository,
  withModelsDir,
} from "./testing/fake_hub.ts";

const MODEL = "svc/tiny-encoder";

async function listed(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("hub: downloads the model's files once, verified, then starts from them offline", async () => {
  await withModelsDir(async (modelsDir) => {
    const hub = fakeHub({ model: MODEL, files: await tinyRepository() });
    const { lines, logger } = capture();
    const hubOptions = { model: MODEL, endpoint: hub.endpoint, modelsDir };
    let first: string;
    try {
      await using embedder = await OnnxEmbedder.open({ hub: hubOptions, logger });
      first = embedder.model;
      assert.match(first, /^onnx:svc\/tiny-encoder:[0-9a-f]{16}$/);
      assert.equal(embedder.recipe.dir, hubModelDir(modelsDir, MODEL));
      assert.equal(embedder.recipe.modelFile, "onnx/model.onnx");
      const [vector] = await embedder.embed(["my dog"]);
      assert.equal(vector.length, embedder.dimensions);
    } finally {
      await hub.close();
    }
    const fetched = hub.requests.filter((r) => !r.startsWith("/api/"));
    assert.ok(!fetched.some((r) => /README|safetensors/.test(r)), fetched.join(" "));
    assert.ok(fetched.includes(`/${MODEL}/resolve/${COMMIT}/onnx/model.onnx`));
    assert.ok(fetched.includes("/cdn/onnx/model.onnx"), "the graph came through the redirect");
    const messages = lines.map((line) => line.msg);
    assert.ok(messages.includes("downloading model"), messages.join(", "));
    assert.ok(messages.includes("downloaded model file"));
    assert.ok(messages.includes("onnx embedder loaded"));

    const dir = hubModelDir(modelsDir, MODEL);
    const manifest = JSON.parse(await Deno.readTextFile(`${dir}/${MANIFEST}`));
    assert.equal(manifest.commit, COMMIT);
    const graph = await Deno.readFile(`${dir}/onnx/model.onnx`);
    assert.deepEqual(
      manifest.files.find((f: { path: string }) => f.path === "onnx/model.onnx"),
      {
        path: "onnx/model.onnx",
        size: graph.length,
        sha256: createHash("sha256").update(graph).digest("hex"),
      },
    );
    assert.ok(!(await listed(dir)).some((name) => name.startsWith(".")), "no temporary file left");

    // The hub is gone now: the verified cache is enough.
    await using again = await OnnxEmbedder.open({ hub: hubOptions });
    assert.equal(again.model, first);
  });
});

Deno.test("hub: a corrupt or cut-short download is never used; the next start resumes", async () => {
  await withModelsDir(async (modelsDir) => {
    const files = await tinyRepository();
    const dir = hubModelDir(modelsDir, MODEL);
    const flip = (bytes: Uint8Array<ArrayBuffer>) => bytes.map((b, i) => i === 100 ? b ^ 1 : b);
    const cut = (bytes: Uint8Array<ArrayBuffer>) =>
      ReadableStream.from([bytes.subarray(0, bytes.length >> 1)]);
    const cases: [FakeHubOptions["serve"], RegExp][] = [
      [
        (path, bytes) => path === "config.json" ? flip(bytes) : bytes,
        /config\.json does not match the checksum/,
      ],
      [
        (path, bytes) => path === "onnx/model.onnx" ? flip(bytes) : bytes,
        /onnx\/model\.onnx does not match the checksum/,
      ],
      [
        (path, bytes) => path === "onnx/model.onnx" ? cut(bytes) : bytes,
        /onnx\/model\.onnx ended after \d+ of \d+ bytes/,
      ],
    ];
    for (const [serve, reason] of cases) {
      const hub = fakeHub({ model: MODEL, files, serve });
      try {
        await assert.rejects(
          openHubModel({ model: MODEL, endpoint: hub.endpoint, modelsDir }),
          (error) => error instanceof SvcError && reason.test(error.message),
        );
      } finally {
        await hub.close();
      }
      const names = await listed(dir);
      assert.ok(!names.includes(MANIFEST), "no record of a finished download");
      assert.ok(!names.some((name) => name.startsWith(".")), `no partial file: ${names}`);
      await assert.rejects(Deno.stat(`${dir}/onnx/model.onnx`), Deno.errors.NotFound);
    }
    // A sound hub: the files verified by the failed attempts are kept, only the graph is fetched.
    const hub = fakeHub({ model: MODEL, files });
    try {
      const model = await openHubModel({ model: MODEL, endpoint: hub.endpoint, modelsDir });
      assert.equal(model.commit, COMMIT);
      const fetched = hub.requests.filter((r) => r.includes("/resolve/"));
      assert.deepEqual(fetched, [`/${MODEL}/resolve/${COMMIT}/onnx/model.onnx`]);
    } finally {
      await hub.close();
    }
  });
});

Deno.test("hub: a hub that stops sending is given up, with the directory to fill by hand", async () => {
  await withModelsDir(async (modelsDir) => {
    const dir = hubModelDir(modelsDir, MODEL);
    const stalled = (error: unknown) =>
      error instanceof SvcError && error.code === "backend_unavailable" &&
      /the hub sent nothing for 0.2 seconds/.test(error.message) &&
      error.message.includes(`SVC_ONNX_MODEL_DIR=${dir}`);

    // A server that takes the connection and never answers.
    const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const accepting = (async () => {
      for await (const conn of silent) held.push(conn);
    })();
    try {
      const endpoint = `http://127.0.0.1:${silent.addr.port}`;
      await assert.rejects(
        openHubModel({ model: MODEL, endpoint, modelsDir, stallMs: 200 }),
        stalled,
      );
    } finally {
      silent.close();
      for (const conn of held) conn.close();
      await accepting.catch(() => {});
    }

    // A hub that sends half of the graph, then nothing more.
    const files = await tinyRepository();
    const hub = fakeHub({
      model: MODEL,
      files,
      serve: (path, bytes) =>
        path === "onnx/model.onnx"
          ? new ReadableStream({ start: (c) => c.enqueue(bytes.subarray(0, bytes.length >> 1)) })
          : bytes,
    });
    try {
      await assert.rejects(
        openHubModel({ model: MODEL, endpoint: hub.endpoint, modelsDir, stallMs: 200 }),
        stalled,
      );
    } finally {
      await hub.close();
    }
    const names = await listed(dir);
    assert.ok(!names.includes(MANIFEST), "no record of a finished download");
    assert.ok(!names.some((name) => name.startsWith(".")), `no partial file: ${names}`);
  });
});

Deno.test("hub: a file altered after the download is fetched again; a partial file left is removed", async () => {
  await withModelsDir(async (modelsDir) => {
    const hub = fakeHub({ model: MODEL, files: await tinyRepository() });
    try {
      const options = { model: MODEL, endpoint: hub.endpoint, modelsDir };
      await openHubModel(options);
      const dir = hubModelDir(modelsDir, MODEL);
      const config = await Deno.readTextFile(`${dir}/config.json`);
      await Deno.writeTextFile(`${dir}/config.json`, config.replace("bert", "BERT"));
      // What a download killed midway left behind goes with the next one.
      await Deno.writeTextFile(`${dir}/.partial-0123`, "cut short");
      hub.requests.length = 0;
      const { lines, logger } = capture();
      await openHubModel({ ...options, logger });
      assert.equal(await Deno.readTextFile(`${dir}/config.json`), config);
      assert.ok(lines.some((line) => line.level === "warn" && line.file === "config.json"));
      assert.deepEqual(hub.requests.filter((r) => r.includes("/resolve/")), [
        `/${MODEL}/resolve/${COMMIT}/config.json`,
      ]);
      assert.ok(!(await listed(dir)).includes(".partial-0123"), "the partial file is removed");
    } finally {
      await hub.close();
    }
  });
});

Deno.test("hub: an unreachable hub names the directory to fill by hand", async () => {
  await withModelsDir(async (modelsDir) => {
    const closed = fakeHub({ model: MODEL, files: new Map() });
    await closed.close();
    await assert.rejects(
      OnnxEmbedder.open({ hub: { model: MODEL, endpoint: closed.endpoint, modelsDir } }),
      (error) => {
        assert.ok(error instanceof SvcError);
        assert.equal(error.code, "backend_unavailable");
        const dir = hubModelDir(modelsDir, MODEL);
        assert.match(error.message, /^Cannot download the ONNX model "svc\/tiny-encoder" from /);
        assert.match(error.message, /the hub cannot be reached/);
        assert.ok(error.message.includes(`into ${dir} by hand`), error.message);
        assert.ok(
          error.message.includes(`SVC_ONNX_MODEL_DIR=${dir} beside SVC_ONNX_MODEL=${MODEL}`),
          error.message,
        );
        return true;
      },
    );
  });
});

Deno.test("hub: an unknown model, or one without an ONNX export, is a clear error", async () => {
  await withModelsDir(async (modelsDir) => {
    const files = await tinyRepository();
    files.delete("onnx/model.onnx");
    const hub = fakeHub({ model: MODEL, files });
    try {
      await assert.rejects(
        openHubModel({ model: "svc/nothing", endpoint: hub.endpoint, modelsDir }),
        /the hub answered 404: no public model "svc\/nothing" at revision "main"/,
      );
      await assert.rejects(
        openHubModel({ model: MODEL, endpoint: hub.endpoint, modelsDir }),
        /repository has no model\.onnx or onnx\/model\.onnx \(it has no ONNX export/,
      );
    } finally {
      await hub.close();
    }
  });
});
