import assert from "node:assert/strict";
import { ProgressBar, progressLine } from "./progress.ts";

/** A fake standard error: a terminal or not, keeping what is written. */
function stderr(terminal: boolean) {
  const written: string[] = [];
  return {
    written,
    isTerminal: () => terminal,
    writeSync(bytes: Uint8Array) {
      written.push(new TextDecoder().decode(bytes));
      return bytes.length;
    },
  };
}

Deno.test("progressLine: a bar with counts and share, or a count without a total", () => {
  assert.equal(
    progressLine("export", 120, 480),
    "export [########----------------------] 120/480 memories  25%",
  );
  assert.equal(progressLine("import", 7), "import 7 memories");
  assert.equal(progressLine("check", 10, 10, "bytes").endsWith("10/10 bytes  100%"), true);
});

Deno.test("ProgressBar redraws in place at most every 100 ms, and always at the end", () => {
  let now = 0;
  const out = stderr(true);
  const bar = new ProgressBar(out, "import", { now: () => now });
  bar.update(1, 10);
  now = 50;
  bar.update(2, 10); // too soon: skipped
  now = 150;
  bar.update(3, 10);
  now = 160;
  bar.update(10, 10); // the end: drawn
  bar.finish();
  assert.deepEqual(out.written.map((w) => w.match(/\d+\/10/)?.[0] ?? w), [
    "1/10",
    "3/10",
    "10/10",
    "\n",
  ]);
  assert.ok(out.written[0].startsWith("\r") && out.written[0].endsWith("\x1b[K"));
});

Deno.test("ProgressBar draws nothing when standard error is not a terminal", () => {
  const out = stderr(false);
  const bar = new ProgressBar(out, "export");
  bar.update(5, 10);
  bar.finish();
  assert.deepEqual(out.written, []);
});
