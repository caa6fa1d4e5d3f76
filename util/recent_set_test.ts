import assert from "node:assert/strict";
import { RecentSet } from "./recent_set.ts";

Deno.test("recent set: past its limit the value added longest ago goes; adding again renews", () => {
  const erased = new RecentSet<string>(2);
  erased.add("a").add("b").add("a").add("c");
  assert.equal(erased.has("b"), false, "b was added longest ago");
  assert.deepEqual([erased.has("a"), erased.has("c"), erased.size], [true, true, 2]);
  erased.delete("a");
  assert.deepEqual([erased.has("a"), erased.size], [false, 1]);
});
