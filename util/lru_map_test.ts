import assert from "node:assert/strict";
import { LruMap } from "./lru_map.ts";

Deno.test("LRU map: past its limit the least recently used entry goes; reading refreshes", () => {
  const kept = new LruMap<string, number>(2);
  kept.set("a", 1).set("b", 2);
  assert.equal(kept.get("a"), 1);
  kept.set("c", 3);
  assert.equal(kept.get("b"), undefined, "b was the least recently used");
  assert.deepEqual([kept.get("a"), kept.get("c"), kept.size], [1, 3, 2]);
  kept.set("a", 4); // setting a kept key replaces it and drops nothing
  assert.deepEqual([kept.get("a"), kept.get("c"), kept.size], [4, 3, 2]);
});

Deno.test("LRU map: iterates least recently used first; forgets a deleted key", () => {
  const kept = new LruMap<string, number>(3).set("a", 1).set("b", 2).set("c", 3);
  kept.get("a");
  kept.delete("c");
  assert.deepEqual([...kept], [["b", 2], ["a", 1]]);
});

Deno.test("LruMap: has leaves the order; past its limit the key set longest ago goes", () => {
  const erased = new LruMap<string, true>(2);
  erased.set("a", true).set("b", true).set("a", true);
  erased.has("b");
  erased.set("c", true);
  assert.equal(erased.has("b"), false, "b was set longest ago");
  assert.deepEqual([erased.has("a"), erased.has("c"), erased.size], [true, true, 2]);
  erased.delete("a");
  assert.deepEqual([erased.has("a"), erased.size], [false, 1]);
});
