/**
 * The model conformance suites: every `Embedder`, `Reranker` and `Llm` must pass its own.
 */
import assert from "node:assert/strict";
import type { Embedder, Llm, Reranker } from "../backends/types.ts";
import { refusesAborted } from "./refuses_aborted.ts";

/**
 * Registers the embedder tests, for the embedders `create` makes; one with
 * `Symbol.asyncDispose` is disposed after its test.
 */
export function embedderSuite(
  name: string,
  create: () =>
    | (Embedder & Partial<AsyncDisposable>)
    | Promise<Embedder & Partial<AsyncDisposable>>,
) {
  Deno.test(`${name}: deterministic, normalised vectors of the declared size`, async () => {
    const embedder = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await embedder[Symbol.asyncDispose]?.() };
    assert.ok(embedder.model.length > 0);
    const [a, b, c] = await embedder.embed([
      "I adore my dog Rex",
      "I adore my dog Rex",
      "Quarterly tax filing deadline",
    ]);
    assert.equal(a.length, embedder.dimensions);
    assert.deepEqual(a, b);
    const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5);
    const [q] = await embedder.embed(["what is my dog called"], { purpose: "query" });
    assert.equal(q.length, embedder.dimensions);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
    assert.ok(Math.abs(dot(q, q) - 1) < 1e-5, "a query's vector is normalised too");
    assert.ok(dot(q, a) > dot(q, c), "a related text is closer than an unrelated one");
    assert.deepEqual(await embedder.embed([]), []);
  });

  Deno.test(`${name}: an aborted signal is refused`, async () => {
    const embedder = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await embedder[Symbol.asyncDispose]?.() };
    await refusesAborted((o) => embedder.embed(["I adore my dog Rex"], o), "embed");
  });
}

/**
 * Registers the re-ranker tests, for the re-rankers `create` makes; one with
 * `Symbol.asyncDispose` is disposed after its test.
 */
export function rerankerSuite(
  name: string,
  create: () =>
    | (Reranker & Partial<AsyncDisposable>)
    | Promise<Reranker & Partial<AsyncDisposable>>,
) {
  Deno.test(`${name}: one score in [0, 1] per text, in order; an aborted call rejects`, async () => {
    const reranker = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await reranker[Symbol.asyncDispose]?.() };
    assert.ok(reranker.name.length > 0);
    const texts = ["Quarterly tax filing deadline", "My dog Rex loves the beach", ""];
    const scores = await reranker.rerank("what is my dog called", texts);
    assert.equal(scores.length, texts.length);
    assert.ok(scores.every((s) => Number.isFinite(s) && s >= 0 && s <= 1), `${scores}`);
    assert.ok(scores[1] > scores[0], "a text about the query beats an unrelated one");
    const reversed = await reranker.rerank("what is my dog called", texts.toReversed());
    assert.deepEqual(reversed, scores.toReversed(), "each score belongs to its text");
    assert.deepEqual(await reranker.rerank("anything", []), []);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await assert.rejects(
      reranker.rerank("dog", texts, { signal: controller.signal }),
      /stop/,
    );
  });
}

/**
 * Registers the language model tests, for the models `create` makes; one with
 * `Symbol.asyncDispose` is disposed after its test.
 */
export function llmSuite(name: string, create: () => Promise<Llm & Partial<AsyncDisposable>>) {
  Deno.test(`${name}: extracts facts about the user and answers from memories`, async () => {
    const llm = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await llm[Symbol.asyncDispose]?.() };
    assert.ok(llm.model.length > 0);
    const facts = await llm.extractFacts(
      "Hi! I'm vegetarian. What time is it? I live in Oslo. He said it would rain.",
    );
    assert.ok(facts.length >= 1 && facts.length <= 20);
    assert.ok(facts.every((fact) => typeof fact === "string" && fact.length > 0));
    assert.ok(facts.some((fact) => /vegetarian/i.test(fact)));
    assert.ok(facts.every((fact) => !/\?$/.test(fact) && !/said/.test(fact)));
    assert.deepEqual(await llm.extractFacts("Hello! How are you?"), []);
    const answer = await llm.answer("Where do I live?", ["I live in Oslo", "I have a cat"]);
    assert.match(answer, /Oslo/);
  });

  Deno.test(`${name}: an aborted signal is refused`, async () => {
    const llm = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await llm[Symbol.asyncDispose]?.() };
    await refusesAborted((o) => llm.extractFacts("I live in Oslo.", o), "extractFacts");
    await refusesAborted((o) => llm.answer("Where do I live?", ["I live in Oslo"], o), "answer");
  });
}
