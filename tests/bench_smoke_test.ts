/**
 * `deno task bench`, the first benchmark the README names, runs to its end on a fresh data
 * directory and writes its results where `--out` says (never over the committed ones).
 */
import assert from "node:assert/strict";
import { ROOT } from "./relayer_process.ts";

Deno.test("deno task bench: a small run ends and writes its results", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-smoke-" });
  try {
    const out = `${dir}/remember_recall.json`;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "bench", "--samples", "3", "--memories", "50", "--out", out],
      cwd: ROOT,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    const results = JSON.parse(await Deno.readTextFile(out));
    assert.ok(results.ingest_memories_per_second > 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
