/**
 * Recall embeds a query a key asked before only once; another key's, or account's, is its own.
 * The memories name no one by a relation, so each recall asks one question.
 */
import assert from "node:assert/strict";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { MemoryVectorStore } from "../src/backends/memory.ts";
import type { EmbedOptions } from "../src/backends/types.ts";
import { rememberAll, startTestRelayer } from "./fixtures.ts";

/** The lexical embedder, counting the queries it embeds. */
class CountingEmbedder extends LexicalEmbedder {
  queries: string[] = [];
  override embed(texts: string[], options?: EmbedOptions) {
    if (options?.purpose === "query") this.queries.push(...texts);
    return super.embed(texts, options);
  }
}

Deno.test("query vectors: an account asking the same words again skips the model; another account does not share them", async () => {
  const embedder = new CountingEmbedder();
  await using t = await startTestRelayer({
    embedder,
    vectors: new MemoryVectorStore(embedder.dimensions),
  });
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  await rememberAll(t, alice, [{ text: "The dentist I see is Dr Berg" }]);
  await rememberAll(t, bob, [{ text: "The dentist I see is Dr Olsen" }]);
  const recall = async (caller: typeof alice, query: string) => {
    const res = await t.signed(caller, "POST", "/api/recall", { query });
    assert.equal(res.status, 200);
    return (await res.json()).results.map((r: { text: string }) => r.text);
  };
  assert.deepEqual(await recall(alice, "Who is my dentist?"), ["The dentist I see is Dr Berg"]);
  assert.deepEqual(await recall(alice, "Who is my dentist?"), ["The dentist I see is Dr Berg"]);
  assert.deepEqual(embedder.queries, ["Who is my dentist?"]);
  assert.deepEqual(await recall(bob, "Who is my dentist?"), ["The dentist I see is Dr Olsen"]);
  assert.deepEqual(await recall(alice, "Who is my dentist now?"), ["The dentist I see is Dr Berg"]);
  assert.deepEqual(embedder.queries, [
    "Who is my dentist?",
    "Who is my dentist?",
    "Who is my dentist now?",
  ]);
});

Deno.test("query vectors: none kept from another embedder (a reindex switched it)", async () => {
  const embedder = new CountingEmbedder();
  let model = embedder.model;
  Object.defineProperty(embedder, "model", { get: () => model });
  await using t = await startTestRelayer({
    embedder,
    vectors: new MemoryVectorStore(embedder.dimensions),
  });
  const alice = await t.newCaller();
  await rememberAll(t, alice, [{ text: "The dentist I see is Dr Berg" }]);
  const recall = (query: string) => t.signed(alice, "POST", "/api/recall", { query });
  await (await recall("Who is my dentist?")).body?.cancel();
  model = `${model}-next`;
  await (await recall("Who is my dentist?")).body?.cancel();
  assert.deepEqual(embedder.queries, ["Who is my dentist?", "Who is my dentist?"]);
});

Deno.test("query vectors: another key of the account asking the same words, by recall or ask, embeds them again", async () => {
  const embedder = new CountingEmbedder();
  await using t = await startTestRelayer({
    embedder,
    vectors: new MemoryVectorStore(embedder.dimensions),
  });
  const alice = await t.newCaller();
  const agent = await t.addKey(alice, { scope: { namespaces: ["work"] } });
  const asked = async (caller: typeof alice, path: string, body: object) => {
    const res = await t.signed(caller, "POST", path, body);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  };
  await asked(alice, "/api/recall", { query: "Who is my dentist?" });
  await asked(agent, "/api/recall", { query: "Who is my dentist?", namespace: "work" });
  await asked(agent, "/api/ask", { question: "Who is my dentist?", namespace: "work" });
  await asked(alice, "/api/ask", { question: "Who is my dentist?" });
  assert.deepEqual(embedder.queries, ["Who is my dentist?", "Who is my dentist?"]);
});
