/**
 * The local cipher's tests that hold whatever its key store: run by `mod_test.ts` on the Deno KV
 * store and by the PostgreSQL plugin's tests on its own.
 */
import assert from "node:assert/strict";
import { type KeyStore, SvcError } from "@svc/relayer/kit";
import { LocalCipher } from "../mod.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const dec = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const OWNER = "0x" + "ab".repeat(32);
const forbidden = (error: unknown) => error instanceof SvcError && error.code === "forbidden";

/** Persistent keys under test; disposed after the test. */
export interface KeyStoreUnderTest extends AsyncDisposable {
  /** A new handle on the same stored keys (what a restart, or another relayer, opens). */
  open(): Promise<KeyStore>;
}

/** Registers the tests, for the fresh (empty) stores `fresh` makes. */
export function localCipherKeyStoreSuite(
  name: string,
  fresh: () => Promise<KeyStoreUnderTest>,
) {
  const cipherOn = async (keys: KeyStoreUnderTest, masterKey: Uint8Array<ArrayBuffer>) =>
    await LocalCipher.open({ masterKey, keyStore: await keys.open() });

  Deno.test(`${name}: after erase, a copy of a ciphertext taken before it does not decrypt with the master key and the key store as it is after the erase`, async () => {
    await using keys = await fresh();
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const texts = { erased: "I am vegetarian", kept: "I live in Lyon", legacy: "I like tea" };
    const ids = { erased: crypto.randomUUID(), kept: crypto.randomUUID(), legacy: "m-legacy" };
    const backup: Record<string, Uint8Array<ArrayBuffer>> = {};
    {
      await using cipher = await cipherOn(keys, masterKey);
      for (const which of ["erased", "kept", "legacy"] as const) {
        // The legacy memory is encrypted as versions before erase encrypted every memory.
        const options = which === "legacy" ? {} : { memoryId: ids[which] };
        backup[ids[which]] = (await cipher.encrypt(OWNER, enc(texts[which]), options)).slice();
      }
    }
    {
      await using cipher = await cipherOn(keys, masterKey);
      await cipher.erase(OWNER, [ids.erased]);
    }
    // Everything a thief of the copies could use: the master key and the key store as it is now.
    await using cipher = await cipherOn(keys, masterKey);
    const found: Record<string, string> = {};
    for (const [memoryId, bytes] of Object.entries(backup)) {
      assert.ok(!dec(bytes).includes("vegetarian"));
      found[memoryId] = await cipher.decrypt(OWNER, bytes).then(dec, (error) => {
        assert.ok(forbidden(error), String(error));
        return "(refused)";
      });
    }
    assert.deepEqual(found, {
      [ids.erased]: "(refused)",
      [ids.kept]: texts.kept,
      [ids.legacy]: texts.legacy, // version 1 carries its key: erase cannot reach it
    });
  });

  Deno.test(`${name}: an erase reaches the encryptions of the memory still under way`, async () => {
    await using keys = await fresh();
    await using cipher = await cipherOn(keys, crypto.getRandomValues(new Uint8Array(32)));
    const memoryId = crypto.randomUUID();
    const pending = cipher.encrypt(OWNER, enc("I run"), { memoryId });
    await cipher.erase(OWNER, [memoryId]);
    await assert.rejects(async () => cipher.decrypt(OWNER, await pending), forbidden);
    // A new encryption after the erase has a key of its own.
    const again = await cipher.encrypt(OWNER, enc("I run"), { memoryId });
    assert.equal(dec(await cipher.decrypt(OWNER, again)), "I run");
  });

  Deno.test(`${name}: concurrent encryptions are each durable once they resolve`, async () => {
    await using keys = await fresh();
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const texts = Array.from({ length: 64 }, (_, i) => `memory ${i}`);
    const sealed = await (async () => {
      await using cipher = await cipherOn(keys, masterKey);
      return await Promise.all(
        texts.map((text) => cipher.encrypt(OWNER, enc(text), { memoryId: crypto.randomUUID() })),
      );
    })();
    await using reopened = await cipherOn(keys, masterKey);
    const read = await Promise.all(
      sealed.map(async (bytes) => dec(await reopened.decrypt(OWNER, bytes))),
    );
    assert.deepEqual(read, texts);
  });

  Deno.test(`${name}: close waits for the encryptions under way and their key writes`, async () => {
    await using keys = await fresh();
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const cipher = await cipherOn(keys, masterKey);
    const memoryId = crypto.randomUUID();
    const sealed = await cipher.encrypt(OWNER, enc("I swim"), { memoryId: crypto.randomUUID() });
    const pending = cipher.encrypt(OWNER, enc("I run"), { memoryId });
    await cipher.close();
    await assert.rejects(() => cipher.encrypt(OWNER, enc("late"), { memoryId: "m" }), SvcError);
    await using reopened = await cipherOn(keys, masterKey);
    assert.equal(dec(await reopened.decrypt(OWNER, await pending)), "I run");
    assert.equal(dec(await reopened.decrypt(OWNER, sealed)), "I swim");
  });

  Deno.test(`${name}: a key store keeps keys of each owner and memory apart`, async () => {
    await using keys = await fresh();
    const store = await keys.open();
    try {
      const wrapped = (i: number) => new Uint8Array(60).fill(i);
      const places = [
        { owner: "o1", memoryId: "m1", keyTag: "0000000000000001" },
        { owner: "o1", memoryId: "m1", keyTag: "0000000000000002" },
        { owner: "o1", memoryId: "m2", keyTag: "0000000000000001" },
        { owner: "o2", memoryId: "m1", keyTag: "0000000000000001" },
        // Parts that would run together if joined without care.
        { owner: "o1m", memoryId: "1", keyTag: "0000000000000001" },
      ];
      await Promise.all(places.map((place, i) => store.put(place, wrapped(i))));
      for (const [i, place] of places.entries()) {
        assert.deepEqual(await store.get(place), wrapped(i));
      }
      await store.erase("o1", ["m1", "unknown"]);
      assert.deepEqual(
        await Promise.all(places.map((place) => store.get(place))),
        [null, null, wrapped(2), wrapped(3), wrapped(4)],
      );
    } finally {
      await store.close();
    }
  });
}
