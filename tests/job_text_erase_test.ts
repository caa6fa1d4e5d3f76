/**
 * Issue 85: nothing of an erased memory remains once its receipt is issued. A remember job's text
 * waits in `jobs.kv` under a key of its own in the key store, which the erase destroys whatever
 * the cipher: what Deno KV keeps of the deleted text no longer opens.
 */
import assert from "node:assert/strict";
import { JOB_TEXT_KEY_TAG } from "../src/backends/key_store.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { MemoryKeyStore } from "../plugins/local_cipher/key_store.ts";
import { openKvStores } from "@svc/denokv";
import { jsonOf, rememberAll, startTestRelayer } from "./fixtures.ts";

Deno.test("erase: once the receipt is issued, the key of the memory's job text is gone, even with a cipher that keeps its keys elsewhere", async () => {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const kv = await Deno.openKv(":memory:");
  try {
    const keyStore = new MemoryKeyStore();
    // The cipher's keys in a store of its own, as Seal keeps them out of keys.sqlite.
    const cipher = await LocalCipher.open({
      masterKey: crypto.getRandomValues(new Uint8Array(32)),
    });
    await using t = await startTestRelayer({
      kv,
      withoutKv: true,
      secret,
      cipher,
      ...await openKvStores(kv, secret, { keyStore }),
    });
    const alice = await t.newCaller();
    const [id, kept] = await rememberAll(t, alice, [
      { text: "my bank PIN is 4321" },
      { text: "I like figs" },
    ]);
    const place = (memoryId: string) => ({
      owner: alice.owner,
      memoryId,
      keyTag: JOB_TEXT_KEY_TAG,
    });
    assert.ok(await keyStore.get(place(id)), "the key outlives the job: Deno KV keeps its text");
    const receipt = await jsonOf(await t.signed(alice, "DELETE", `/api/memories/${id}`));
    assert.equal(receipt.memory_id, id);
    assert.equal(await keyStore.get(place(id)), null);
    assert.ok(await keyStore.get(place(kept)));
  } finally {
    kv.close();
  }
});
