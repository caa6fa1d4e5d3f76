/**
 * The relayer tells its embedder what it embeds: memories as documents, recall's (and ask's)
 * question as a query, so that a model trained with query/passage prefixes gets the right one.
 */
import assert from "node:assert/strict";
import type { Embedder, EmbedOptions } from "../src/backends/types.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { jsonOf, rememberAll, startTestRelayer } from "./fixtures.ts";

/** A lexical embedder that notes the purpose of every call and the texts it got. */
class PurposeRecorder implements Embedder {
  readonly name = "purpose-recorder";
  readonly #inner = new LexicalEmbedder();
  readonly model = this.#inner.model;
  readonly dimensions = this.#inner.dimensions;
  readonly calls: { purpose: string; texts: string[] }[] = [];
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
    this.calls.push({ purpose: options?.purpose ?? "document", texts });
    return this.#inner.embed(texts, options);
  }
}

Deno.test("memories are embedded as documents; recall and ask embed their question as a query", async () => {
  const embedder = new PurposeRecorder();
  await using t = await startTestRelayer({ embedder });
  const caller = await t.newCaller();
  await rememberAll(t, caller, [{ text: "My dog is called Rex" }]);
  const purposeOf = (text: string) =>
    embedder.calls.filter((call) => call.texts.includes(text)).map((call) => call.purpose);
  assert.deepEqual(purposeOf("My dog is called Rex"), ["document"]);
  const recalled = await jsonOf(
    await t.signed(caller, "POST", "/api/recall", { query: "what is my dog called" }),
  );
  assert.equal(recalled.results[0].text, "My dog is called Rex");
  assert.deepEqual(purposeOf("what is my dog called"), ["query"]);
  await jsonOf(await t.signed(caller, "POST", "/api/ask", { question: "who is Rex?" }));
  assert.deepEqual(purposeOf("who is Rex?"), ["query"]);
});
