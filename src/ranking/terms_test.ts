import assert from "node:assert/strict";
import { LexicalIndex } from "./lexical_index.ts";
import { stem, TermHasher, terms } from "./terms.ts";

Deno.test("terms: stems, stop words and irregular pasts", () => {
  assert.deepEqual(terms("When did Caroline go to the support groups?"), [
    "caroline",
    "go",
    "support",
    "group",
  ]);
  assert.deepEqual(terms("I went running with my puppies"), ["go", "run", "puppy"]);
  assert.deepEqual(["boxes", "painted", "quickly", "1990s", "gas"].map(stem), [
    "box",
    "paint",
    "quick",
    "1990s",
    "gas",
  ]);
});

Deno.test("terms: keyed hashes differ per owner and never spell the word", async () => {
  const hasher = await TermHasher.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  const alice = await hasher.hash("0xalice", "marmalade marmalade toast");
  const bob = await hasher.hash("0xbob", "marmalade toast");
  assert.equal(alice.length, 3);
  assert.equal(alice[0], alice[1], "the same word, the same hash for one owner");
  assert.notEqual(alice[0], bob[0], "another owner, another hash");
  assert.ok(alice.every((h) => /^[0-9a-f]{16}$/.test(h)));
  const other = await TermHasher.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  assert.notDeepEqual(await other.hash("0xalice", "marmalade"), [alice[0]], "another secret");
});

Deno.test("lexical index: BM25 ranks rare shared terms first; updates replace terms", async () => {
  const rows = [
    { id: "a", terms: ["tea", "morning", "user"] },
    { id: "b", terms: ["coffee", "morning", "user"] },
    { id: "c", terms: ["zanzibar", "user"] },
  ];
  const index = new LexicalIndex(() => Promise.resolve(rows));
  const ids = async (query: string[]) =>
    (await index.search("o", "n", query, 5)).map((hit) => hit.id);
  const found = await ids(["zanzibar", "morning"]);
  assert.equal(found[0], "c", "the rarer term weighs more");
  assert.deepEqual(found.slice(1).sort(), ["a", "b"]);
  await index.add("o", "n", "d", ["tea", "tea", "zanzibar"]);
  assert.equal((await ids(["tea"]))[0], "d", "higher term frequency wins");
  await index.add("o", "n", "d", ["coffee"]);
  assert.deepEqual(await ids(["tea"]), ["a"], "a re-indexed memory loses its old terms");
  // A namespace not loaded yet is read from the store when first searched.
  await index.add("o", "other", "x", ["tea"]);
  assert.deepEqual((await index.search("o", "other", ["tea"], 5)).map((h) => h.id), ["a"]);
});
