import assert from "node:assert/strict";
import { progressWriter } from "./svc_reindex.ts";

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
