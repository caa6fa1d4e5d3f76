/** `POST /api/embed`: vectors in the relayer's own space, for clients that store their own ciphertexts. */
import assert from "node:assert/strict";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { jsonOf as json, startTestRelayer } from "./fixtures.ts";
import { clientOf, startStack } from "./cli_fixtures.ts";

Deno.test("embed: one text or many, as memories or questions, in the index's space; bad input is a 400", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const one = await json(await t.signed(alice, "POST", "/api/embed", { text: "I am vegetarian" }));
  assert.equal(one.model, new LexicalEmbedder().model);
  assert.equal(one.dimensions, t.vectors.dimensions);
  assert.equal(one.vector.length, one.dimensions);
  const many = await json(
    await t.signed(alice, "POST", "/api/embed", { texts: ["I am vegetarian", "I keep bees"] }),
  );
  assert.equal(many.vectors.length, 2);
  assert.deepEqual(many.vectors[0], one.vector, "the same text, the same vector");
  assert.equal(many.vector, undefined);

  // A vector it gives finds the memory through manual recall.
  const stored = await json(
    await t.signed(alice, "POST", "/api/remember/manual", {
      encrypted_data: btoa("the client's own ciphertext"),
      vector: one.vector,
    }),
  );
  const question = await json(
    await t.signed(alice, "POST", "/api/embed", { text: "vegetarian", purpose: "query" }),
  );
  const found = await json(
    await t.signed(alice, "POST", "/api/recall/manual", { vector: question.vector, limit: 1 }),
  );
  assert.equal(found.results[0].id, stored.id);

  for (
    const [body, message] of [
      [{}, /Send either text or texts/],
      [{ text: "a", texts: ["b"] }, /Send either text or texts/],
      [{ texts: [] }, /texts/],
      [{ texts: Array(101).fill("x") }, /texts/],
      [{ text: "   " }, /text/],
      [{ texts: ["a", "x".repeat(64 * 1024 + 1)] }, /texts\[1\]/],
      [{ text: "a", purpose: "answer" }, /purpose must be one of document, query/],
    ] as const
  ) {
    const refused = await json(await t.signed(alice, "POST", "/api/embed", body), 400);
    assert.match(refused.error, message, JSON.stringify(body));
  }
});

Deno.test("embed: a key without the read scope is refused", async () => {
  await using t = await startTestRelayer();
  const writer = await t.newCaller({ scope: { operations: ["write"] } });
  const refused = await json(await t.signed(writer, "POST", "/api/embed", { text: "x" }), 403);
  assert.equal(refused.code, "forbidden");
});

Deno.test("embed: the SDK's embed gives the route's vectors", async () => {
  await using stack = await startStack();
  const alice = await stack.test.newCaller();
  const client = await clientOf(stack, alice);
  const { vectors, model, dimensions } = await client.embed(["I keep bees"], { purpose: "query" });
  assert.equal(vectors.length, 1);
  assert.equal(vectors[0].length, dimensions);
  assert.equal(model, new LexicalEmbedder().model);
});
