import assert from "node:assert/strict";
import type { Cipher } from "../src/backends/types.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { startTestRelayer } from "./fixtures.ts";

Deno.test("recall decrypts no memory it stored while its cipher holds its keys (the worker keeps the text), on every call otherwise", async () => {
  const counted = async (holdsKeys: boolean) => {
    const inner = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
    let decrypted = 0;
    const cipher: Cipher = {
      name: "counting",
      holdsKeys,
      encrypt: (owner, plaintext, options) => inner.encrypt(owner, plaintext, options),
      decrypt: (owner, ciphertext, options) => {
        decrypted++;
        return inner.decrypt(owner, ciphertext, options);
      },
      erase: (owner, ids, options) => inner.erase(owner, ids, options),
    };
    await using t = await startTestRelayer({ cipher });
    const alice = await t.newCaller();
    const res = await t.signed(alice, "POST", "/api/remember", { text: "I keep bees" });
    const { job_id } = await res.json();
    await t.settle(alice, [job_id]);
    for (let i = 0; i < 3; i++) {
      const recall = await (await t.signed(alice, "POST", "/api/recall", { query: "bees" })).json();
      assert.deepEqual(recall.results.map((r: { text: string }) => r.text), ["I keep bees"]);
    }
    // Alice's ciphertext filed under Bob: the kept text is Alice's alone, and the blob does
    // not decrypt for Bob. It is not his memory's, so either cipher leaves it out of his
    // recall, and neither refuses him.
    const bob = await t.newCaller();
    const [vector] = await new LexicalEmbedder().embed(["I keep bees"]);
    const [row] = await t.vectors.search(alice.owner, "default", vector, 1);
    const copy = { id: "bob-copy", blobId: row.blobId, vector, createdAt: Date.now() };
    await t.vectors.upsert([{ ...copy, owner: bob.owner, namespace: "default" }]);
    const bobs = await t.signed(bob, "POST", "/api/recall", { query: "bees" });
    assert.equal(bobs.status, 200);
    assert.doesNotMatch(await bobs.text(), /bees/);
    return decrypted;
  };
  assert.equal(await counted(true), 1, "Alice's never, Bob's attempt once");
  assert.equal(await counted(false), 4, "every recall decrypts");
});
