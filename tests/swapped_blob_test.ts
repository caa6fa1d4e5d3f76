import assert from "node:assert/strict";
import { MemoryBlobStore } from "../src/backends/memory.ts";
import type { CallOptions, Cipher } from "../src/backends/types.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import {
  type Caller,
  jsonOf,
  rememberAll,
  startTestRelayer,
  type TestRelayer,
} from "./fixtures.ts";

/**
 * A blob store with a cache in front, as Walrus keeps one: a read is cached, and `lies` makes
 * a read of a blob answer another blob's bytes (a lying aggregator).
 */
class CachingBlobStore extends MemoryBlobStore {
  /** Blob id → the blob id whose bytes a read of it answers. */
  readonly lies = new Map<string, string>();
  readonly #cache = new Map<string, Uint8Array<ArrayBuffer>>();

  override async get(blobId: string, options?: CallOptions) {
    const cached = this.#cache.get(blobId);
    if (cached) return cached.slice();
    const bytes = await super.get(this.lies.get(blobId) ?? blobId, options);
    if (bytes) this.#cache.set(blobId, bytes.slice());
    return bytes;
  }

  forget(blobId: string): Promise<void> {
    this.#cache.delete(blobId);
    return Promise.resolve();
  }
}

/** The blob id of each of `caller`'s memories in the default namespace, by memory id. */
async function blobIds(store: MemoryBlobStore, caller: Caller): Promise<Map<string, string>> {
  const entries = await store.list(caller.owner, "default");
  return new Map(entries.map((entry) => [entry.meta.memoryId, entry.blobId]));
}

const get = async (t: TestRelayer, caller: Caller, id: string) =>
  (await jsonOf(await t.signed(caller, "GET", `/api/memories/${id}`))).text;

Deno.test("a blob store answering another memory's bytes: the memory reads as null, not as the other, and reads again once the store is honest", async () => {
  const blobs = new CachingBlobStore();
  await using t = await startTestRelayer({ blobs, textCacheBytes: 0 });
  const alice = await t.newCaller();
  const [a, b] = await rememberAll(t, alice, [{ text: "I keep bees" }, { text: "I live in Oslo" }]);
  const ids = await blobIds(blobs, alice);
  blobs.lies.set(ids.get(a)!, ids.get(b)!);

  assert.equal(await get(t, alice, a), null, "not B's text under A's id");
  assert.equal(await get(t, alice, b), "I live in Oslo");
  const list = await jsonOf(await t.signed(alice, "GET", "/api/memories"));
  assert.deepEqual(
    new Map(list.memories.map((m: { id: string; text: string }) => [m.id, m.text])),
    new Map([[a, null], [b, "I live in Oslo"]]),
  );

  blobs.lies.clear();
  assert.equal(await get(t, alice, a), "I keep bees", "the cached lie was dropped");
});

Deno.test("another owner's ciphertext under a memory, with a cipher of the caller's key: that memory is unreadable, the namespace is not refused", async () => {
  const local = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  // As Seal: decrypts with the caller's key, so keeps no text and may refuse the caller.
  const cipher: Cipher = {
    name: "callers-key",
    holdsKeys: false,
    encrypt: (owner, plaintext, options) => local.encrypt(owner, plaintext, options),
    decrypt: (owner, ciphertext, options) => local.decrypt(owner, ciphertext, options),
    erase: (owner, ids, options) => local.erase(owner, ids, options),
  };
  const blobs = new CachingBlobStore();
  await using t = await startTestRelayer({ blobs, cipher });
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  const [a, b] = await rememberAll(t, alice, [{ text: "I keep bees" }, { text: "I keep hens" }]);
  const [bobs] = await rememberAll(t, bob, [{ text: "I keep goats" }]);
  blobs.lies.set((await blobIds(blobs, alice)).get(a)!, (await blobIds(blobs, bob)).get(bobs)!);

  const recall = await jsonOf(await t.signed(alice, "POST", "/api/recall", { query: "I keep" }));
  assert.deepEqual(recall.results.map((r: { text: string }) => r.text), ["I keep hens"]);
  const list = await jsonOf(await t.signed(alice, "GET", "/api/memories"));
  assert.deepEqual(list.memories.map((m: { text: string }) => m.text).sort(), [
    "I keep hens",
    null,
  ]);
  const exported = await t.signed(alice, "GET", "/api/export");
  assert.equal(exported.status, 200);
  assert.doesNotMatch(await exported.text(), /goats/);
  assert.equal(await get(t, alice, a), null);
  assert.equal(await get(t, alice, b), "I keep hens");

  blobs.lies.clear();
  assert.equal(await get(t, alice, a), "I keep bees");
  await local.close();
});
