/**
 * The dashboard's operator-blind crypto (`static/blind_keys.js`) against the TypeScript client's:
 * the same Montgomery keys, content keys wrapped one way open the other way, the same entries'
 * key, and entries a `BlindMemory` appended open in the dashboard's module.
 */
import assert from "node:assert/strict";
import { ed25519 } from "@noble/curves/ed25519.js";
import { generateKeyPair } from "@svc/util/keys";
import { BlindMemory } from "../src/client/blind.ts";
import { blindKeys, unwrapWith, wrapFor } from "../src/client/blind_keys.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { BASE, jsonOf, startTestRelayer } from "./fixtures.ts";
import * as dashboard from "../app/dashboard/static/blind_keys.js";

const seedOf = (privateKey: string) => Uint8Array.fromHex(privateKey);

Deno.test("blind keys: a key's Montgomery form is noble's", async () => {
  for (let i = 0; i < 20; i++) {
    const { publicKey } = await generateKeyPair();
    const expected = ed25519.utils.toMontgomery(Uint8Array.fromHex(publicKey));
    assert.deepEqual(dashboard.montgomery(publicKey), expected);
  }
  assert.throws(() => dashboard.montgomery("not hex"), /64 lowercase hex/);
  // y = 1: the neutral point, which has no Montgomery form.
  assert.throws(() => dashboard.montgomery("01".padEnd(64, "0")), /not an Ed25519 public key/);
});

Deno.test("blind keys: content keys wrapped by either side open on the other", async () => {
  const key = await generateKeyPair();
  const contentKey = crypto.getRandomValues(new Uint8Array(32));

  const byClient = await wrapFor(contentKey, key.publicKey, "private");
  const opened = await dashboard.unwrapWith(
    byClient,
    seedOf(key.privateKey),
    key.publicKey,
    "private",
  );
  assert.deepEqual(opened, contentKey);

  const byDashboard: Uint8Array = await dashboard.wrapFor(contentKey, key.publicKey, "private");
  assert.deepEqual(await unwrapWith(byDashboard, key.privateKey, "private"), contentKey);
  // Bound to the namespace and to the key.
  await assert.rejects(unwrapWith(byDashboard, key.privateKey, "other"));
  const stranger = await generateKeyPair();
  await assert.rejects(
    dashboard.unwrapWith(byClient, seedOf(stranger.privateKey), stranger.publicKey, "private"),
  );

  assert.deepEqual(await dashboard.entriesKey(contentKey), (await blindKeys(contentKey)).entries);
});

Deno.test("blind keys: the dashboard opens the entries a BlindMemory appended", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const memory = await BlindMemory.open({
    baseUrl: BASE,
    privateKey: caller.key.privateKey,
    embedder: new LexicalEmbedder(),
    namespace: "private",
    retries: 0,
    fetch: (input, init) => t.relayer.handler(new Request(input, init)),
  });
  await memory.enable();
  const [first, second] = await memory.remember([
    { text: "I am vegetarian", tags: ["diet", "food"] },
    { text: 'Ünïcödé and "quotes"\nover two lines', thread: "chat-7" },
  ]);
  const { id: third } = await memory.update(first, { text: "I am vegan" });

  const head = await jsonOf(await t.signed(caller, "GET", "/api/blind?namespace=private"));
  const contentKey = await dashboard.unwrapWith(
    Uint8Array.fromBase64(head.wrapped),
    seedOf(caller.key.privateKey),
    caller.key.publicKey,
    "private",
  );
  const key = await dashboard.entriesKey(contentKey);
  const { records } = await jsonOf(
    await t.signed(caller, "GET", "/api/blind/entries?namespace=private"),
  );
  const sealed = records.filter((record: { sealed?: string }) => record.sealed);
  const opened = sealed.map((record: { id: string; sealed: string }) =>
    dashboard.openEntry(key, "private", record.id, record.sealed)
  );
  const expected = await memory.memories();
  assert.deepEqual(
    opened.map(({ id, text, tags }: { id: string; text: string; tags: string[] }) => ({
      id,
      text,
      tags,
    })),
    [
      { id: second, text: expected.find((m) => m.id === second)!.text, tags: [] },
      { id: third, text: "I am vegan", tags: ["diet", "food"] },
    ],
  );
  assert.equal(opened[1].supersedes, first);
  assert.equal(opened[0].thread, "chat-7");
  assert.equal(opened[1].thread, undefined);
  assert.equal(opened[0].createdAt, expected.find((m) => m.id === second)!.createdAt);
  // Bound to its id and namespace.
  assert.throws(
    () => dashboard.openEntry(key, "private", first, sealed[0].sealed),
    /does not open with the namespace's key/,
  );
  assert.throws(() => dashboard.openEntry(key, "other", second, sealed[0].sealed));
});
