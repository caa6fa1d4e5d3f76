import assert from "node:assert/strict";
import { describe, progressWriter } from "./svc_reindex.ts";

Deno.test("svc reindex progress: every 5 s without a terminal, and done reads 100%", () => {
  const lines: string[] = [];
  let now = 0;
  const progress = progressWriter((text) => lines.push(text), false, () => now);
  const at = (done: number, phase: "copying" | "done") =>
    progress.update({ phase, done, memories: 1000, namespaces: 2, namespacesDone: 1 });
  at(10, "copying");
  now += 1_000;
  at(500, "copying"); // too soon: not written
  now += 5_000;
  at(998, "copying");
  at(998, "done"); // two were left out: still the end
  progress.end();
  assert.deepEqual(lines, [
    "reindex: 1% 10/1000 memories, 1/2 namespaces\n",
    "reindex: 99% 998/1000 memories, 1/2 namespaces\n",
    "reindex: 100% 998/1000 memories, 1/2 namespaces (done)\n",
  ]);
});

Deno.test("svc reindex summary: one memory, or many", () => {
  const summary = {
    from: { index: "index", model: "old", dimensions: 100 },
    to: { index: "index-2", model: "new", dimensions: 384 },
    memories: 1,
    skipped: { manualDimensions: 0, unreadable: 0 },
    resumed: 0,
    written: 1,
    seconds: 0,
  };
  assert.equal(
    describe(summary),
    'Reindexed 1 memory with "new" (384 dimensions) in 0 s.\n' +
      'The index "index-2" is active; "index" (built with "old") is removed.',
  );
  assert.match(describe({ ...summary, memories: 2 }), /^Reindexed 2 memories with/);
});
