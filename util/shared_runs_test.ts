import assert from "node:assert/strict";
import { SharedRuns } from "./shared_runs.ts";

Deno.test("shared runs: a run under way is shared; one settled is started anew", async () => {
  const runs = new SharedRuns<string, number>();
  let started = 0;
  const task = () => Promise.resolve(++started);
  assert.deepEqual(await Promise.all([runs.run("a", task), runs.run("a", task)]), [1, 1]);
  assert.equal(await runs.run("a", task), 2);
  assert.equal(await runs.run("b", task), 3);
});
