import assert from "node:assert/strict";
import { TextCache } from "./text_cache.ts";

Deno.test("text cache: texts are kept per owner and blob; past the budget the least recently used go", () => {
  const cache = new TextCache(2 * (2 * (2 + 10) + 128)); // two entries of a 10-character text
  cache.set("alice", "b1", "0123456789");
  assert.equal(cache.get("alice", "b1"), "0123456789");
  assert.equal(cache.get("bob", "b1"), undefined, "the same blob id of another owner is not kept");
  cache.set("alice", "b2", "abcdefghij");
  assert.equal(cache.get("alice", "b1"), "0123456789"); // b1 is now the most recently used
  cache.set("alice", "b3", "ABCDEFGHIJ");
  assert.equal(cache.get("alice", "b2"), undefined, "the least recently used went");
  assert.equal(cache.get("alice", "b1"), "0123456789");
  assert.equal(cache.get("alice", "b3"), "ABCDEFGHIJ");
  cache.set("alice", "big", "x".repeat(100));
  assert.equal(cache.get("alice", "big"), undefined, "a text larger than the budget is not kept");
  assert.equal(cache.get("alice", "b3"), "ABCDEFGHIJ", "and evicts nothing");
});

Deno.test("text cache: every text that leaves it, erased or pushed out, is told", () => {
  const dropped: string[] = [];
  const cache = new TextCache(2 * (2 * (2 + 10) + 128), (text) => dropped.push(text));
  cache.set("alice", "b1", "0123456789");
  cache.set("alice", "b2", "abcdefghij");
  assert.ok(cache.holds("alice", "b1") && !cache.holds("bob", "b1"));
  cache.set("alice", "b3", "ABCDEFGHIJ"); // b1 goes
  cache.delete("b2");
  cache.delete("b9"); // never kept: nothing to tell
  assert.deepEqual(dropped, ["0123456789", "abcdefghij"]);
  assert.ok(!cache.holds("alice", "b1") && cache.holds("alice", "b3"));
});
