/**
 * What the in-memory cipher, embedder and language model document beyond their conformance
 * suites: the cipher's error codes, the embedder's sizes, the model's exact outputs.
 */
import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { MemoryCipher } from "../testing/memory_cipher.ts";
import { MemoryEmbedder } from "../testing/memory_embedder.ts";
import { MemoryLlm } from "../testing/memory_llm.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const code = (expected: string) => (error: unknown) => {
  assert.ok(error instanceof SvcError, String(error));
  assert.equal(error.code, expected, error.message);
  return true;
};

Deno.test("MemoryCipher: another owner's or a mangled ciphertext, as the local cipher refuses them", async () => {
  const cipher = new MemoryCipher();
  const sealed = await cipher.encrypt("alice", enc("I am vegetarian"));
  await cipher.encrypt("bob", enc("bob's own"));
  await assert.rejects(() => cipher.decrypt("bob", sealed), code("forbidden"));
  await assert.rejects(() => cipher.decrypt("carol", sealed), code("forbidden"));
  await assert.rejects(() => new MemoryCipher().decrypt("alice", sealed), code("forbidden"));
  await assert.rejects(() => cipher.decrypt("alice", sealed.slice(0, 28)), code("bad_request"));
  const renumbered = sealed.slice();
  renumbered[0] = 3;
  await assert.rejects(() => cipher.decrypt("alice", renumbered), code("bad_request"));
  // Read as version 2 (a memory's key), it names a memory (of 4 bytes) with no key here.
  renumbered.set([2, 4]);
  await assert.rejects(() => cipher.decrypt("alice", renumbered), code("forbidden"));
  const erasable = await cipher.encrypt("alice", enc("I run"), { memoryId: "m1" });
  await assert.rejects(() => cipher.decrypt("bob", erasable), code("forbidden"));
  await assert.rejects(() => cipher.decrypt("alice", erasable.slice(0, 2)), code("bad_request"));
  await assert.rejects(
    () => cipher.encrypt("alice", enc("I run"), { memoryId: "" }),
    code("bad_request"),
  );
});

Deno.test("MemoryEmbedder: the chosen size; a text without words is a fixed unit vector", async () => {
  const embedder = new MemoryEmbedder(16);
  assert.equal(embedder.dimensions, 16);
  assert.equal(embedder.model, "svc-memory-hashed-words-v1-16");
  const [empty, punctuation] = await embedder.embed(["", "?!"]);
  assert.deepEqual(empty, Float32Array.from({ length: 16 }, (_, i) => i === 0 ? 1 : 0));
  assert.deepEqual(punctuation, empty);
  const [cats, cat] = await embedder.embed(["Cats", "cat"]);
  assert.deepEqual(cats, cat, "a trailing plural s is dropped");
  assert.throws(() => new MemoryEmbedder(0), RangeError);
});

Deno.test("MemoryLlm: facts in the third person, answers quoting the best memory", async () => {
  const llm = new MemoryLlm();
  assert.deepEqual(
    await llm.extractFacts(
      "Hi! I'm vegetarian. I am tall.\nI've two cats. I have a dog. I was born in Oslo. " +
        "I'd like tea. I'll move soon. My sister is a nurse. I watch films. I study law. " +
        "I can swim. I told him so. Do I like jazz? I live in Oslo. I live in Oslo.",
    ),
    [
      "The user is vegetarian.",
      "The user is tall.",
      "The user has two cats.",
      "The user has a dog.",
      "The user was born in Oslo.",
      "The user would like tea.",
      "The user will move soon.",
      "The user's sister is a nurse.",
      "The user watches films.",
      "The user studies law.",
      "The user can swim.",
      "The user lives in Oslo.",
    ],
  );
  const many = Array.from({ length: 30 }, (_, i) => `I own ${i} boats.`).join(" ");
  assert.equal((await llm.extractFacts(many)).length, 20);

  const memories = ["I have a cat", "I live in Oslo", "I lived in Bergen"];
  assert.equal(
    await llm.answer("Where do I live?", memories),
    'From your memories: "I live in Oslo"',
  );
  assert.equal(await llm.answer("Any plans?", memories), 'From your memories: "I have a cat"');
  assert.equal(await llm.answer("Any plans?", []), "I found nothing in your memories about that.");
});
