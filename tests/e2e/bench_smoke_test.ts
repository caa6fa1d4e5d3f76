/**
 * `deno task bench`, the first benchmark the README names, runs to its end on a fresh data
 * directory and writes its results where `--out` says (never over the committed ones); the
 * benches refuse a bad command line without a stack trace.
 */
import assert from "node:assert/strict";
import { ROOT } from "../relayer_process.ts";

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

Deno.test("benches: a bad flag or value is one line and exit code 2, before anything starts", async () => {
  const cases: [string[], RegExp][] = [
    [["bench:load", "--size", "5"], /^Unknown option '--size'; this bench takes --sizes, /],
    [["bench:use", "--texts", "abc"], /^--texts must be a whole number of at least 1, not "abc"$/],
    [["bench:load", "--workloads", "recal"], /^--workloads takes health, whoami, recall, /],
    [["bench:soak", "--minutes", "0"], /^--minutes must be a number above 0, not "0"$/],
    [["bench:access-log"], /^--base CHECKOUT\/ is required/],
    [["bench:onnx", "--dir", "/nonexistent-svc-model"], /^Cannot load the ONNX model from /],
  ];
  for (const [args, expected] of cases) {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", ...args],
      cwd: ROOT,
    }).output();
    const said = new TextDecoder().decode(stderr).trim();
    assert.equal(code, 2, `${args.join(" ")}: ${said}`);
    assert.match(said, expected);
    assert.equal(said.split("\n").length, 1, said);
    assert.equal(stdout.length, 0);
  }
});
