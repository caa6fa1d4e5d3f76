import assert from "node:assert/strict";
import { type KeyPlace, type KeyStore, SvcError } from "@svc/relayer/kit";
import { SqliteBlobStore } from "@svc/sqlite-blob";
import { Buffer } from "node:buffer";
import { importKvKeys, MemoryKeyStore, SqliteKeyStore } from "./key_store.ts";
import { localCipherKeyStoreSuite } from "./testing/key_store_suite.ts";
import { LocalCipher } from "./mod.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const dec = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const OWNER = "0x" + "ab".repeat(32);
const forbidden = (error: unknown) => error instanceof SvcError && error.code === "forbidden";

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

/** Copies `keys.sqlite` and whatever -wal/-shm files SQLite has beside it. */
async function copyKeyStore(dir: string, to: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith("keys.sqlite")) {
      await Deno.copyFile(`${dir}/${entry.name}`, `${to}/${entry.name}`);
    }
  }
}

Deno.test("LocalCipher: after erase, a copy of the blob store taken before it does not decrypt with the master key and the key store as they are after the erase", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const keyStorePath = `${dir}/keys.sqlite`;
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const blobs = await SqliteBlobStore.open({ path: `${dir}/blobs/blobs.sqlite`, secret });
    const texts = { erased: "I am vegetarian", kept: "I live in Lyon", legacy: "I like tea" };
    const ids = { erased: crypto.randomUUID(), kept: crypto.randomUUID(), legacy: "m-legacy" };
    {
      await using cipher = await LocalCipher.open({ masterKey, keyStorePath });
      for (const which of ["erased", "kept", "legacy"] as const) {
        const memoryId = ids[which];
        // The legacy memory is encrypted as versions before erase encrypted every memory.
        const options = which === "legacy" ? {} : { memoryId };
        const sealed = await cipher.encrypt(OWNER, enc(texts[which]), options);
        await blobs.put(sealed, { owner: OWNER, namespace: "n", memoryId, createdAt: 1 });
      }
    }
    await blobs.close();
    // The backups: of the blob store, and (the README's warning) of the key store.
    await copyDir(`${dir}/blobs`, `${dir}/blobs-backup`);
    await Deno.mkdir(`${dir}/keys-backup`);
    await copyKeyStore(dir, `${dir}/keys-backup`);
    {
      await using cipher = await LocalCipher.open({ masterKey, keyStorePath });
      await cipher.erase(OWNER, [ids.erased]);
    }

    // Everything a thief of the backup could use: the master key and the key store as it is now.
    const backup = await SqliteBlobStore.open({
      path: `${dir}/blobs-backup/blobs.sqlite`,
      secret,
    });
    const found: Record<string, string> = {};
    {
      await using cipher = await LocalCipher.open({ masterKey, keyStorePath });
      for (const { blobId, meta } of await backup.list(OWNER, "n")) {
        const bytes = (await backup.get(blobId))!;
        assert.ok(!dec(bytes).includes("vegetarian"));
        found[meta.memoryId] = await cipher.decrypt(meta.owner, bytes).then(dec, (error) => {
          assert.ok(forbidden(error), String(error));
          return "(refused)";
        });
      }
    }
    assert.deepEqual(found, {
      [ids.erased]: "(refused)",
      [ids.kept]: texts.kept,
      [ids.legacy]: texts.legacy, // version 1 carries its key: erase cannot reach it
    });

    // A key store backed up before the erase revives the memory: why such backups must go.
    await using revived = await LocalCipher.open({
      masterKey,
      keyStorePath: `${dir}/keys-backup/keys.sqlite`,
    });
    const [erased] = (await backup.list(OWNER, "n")).filter((e) => e.meta.memoryId === ids.erased);
    assert.equal(
      dec(await revived.decrypt(OWNER, (await backup.get(erased.blobId))!)),
      texts.erased,
    );
    await backup.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LocalCipher: a version 1 ciphertext written by 0.1.0 still decrypts", async () => {
  // Encrypted by the cipher of 0.1.0 under the master key 01 02 … 20.
  const written = Uint8Array.fromHex(
    "011aed4c5cf0726c5c587d7e169cf7dec3df51b3f012613158bb2988cb5fe220bb7c30c0c5845303bc86f0" +
      "0781b9af676016c3c50823866dbb0cc99e5391443a5e140df7cb2f9c63d44c45e5936ff379591dda46f4" +
      "eadda686602c446d56c8a7b6c33ea4f1353f970db8b28a42699aaaf3",
  );
  const masterKey = new Uint8Array(32).map((_, i) => i + 1);
  const cipher = await LocalCipher.open({ masterKey });
  assert.equal(dec(await cipher.decrypt(OWNER, written)), "Written by version 0.1.0");
  await assert.rejects(() => cipher.decrypt("0x" + "cd".repeat(32), written), forbidden);
  const other = await LocalCipher.open({ masterKey: new Uint8Array(32) });
  await assert.rejects(() => other.decrypt(OWNER, written), forbidden);
});

Deno.test("LocalCipher: a version 2 ciphertext carries the memory id and a key tag, not the key", async () => {
  const cipher = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  const memoryId = crypto.randomUUID();
  const sealed = await cipher.encrypt(OWNER, enc("I run"), { memoryId });
  assert.equal(sealed[0], 2);
  assert.equal(sealed[1], 36);
  assert.equal(dec(sealed.subarray(2, 38)), memoryId);
  // header (2 + 36 + 8), iv 12, the 5 bytes of text, the GCM tag 16: no 48-byte wrapped key.
  assert.equal(sealed.byteLength, 2 + 36 + 8 + 12 + 5 + 16);
  for (const bad of ["", "x".repeat(256)]) {
    await assert.rejects(
      () => cipher.encrypt(OWNER, enc("I run"), { memoryId: bad }),
      (error) => error instanceof SvcError && error.code === "bad_request",
    );
  }
  await assert.rejects(
    () => cipher.decrypt(OWNER, new Uint8Array([3, 1, 2, 3])),
    (error) => error instanceof SvcError && error.code === "bad_request",
  );
});

/** How many of `markers` the files of the SQLite database at `path` (log included) hold. */
async function held(path: string, markers: Uint8Array[]): Promise<number> {
  const files = await Promise.all(
    ["", "-wal", "-shm", "-journal"].map((suffix) =>
      Deno.readFile(path + suffix).catch(() => new Uint8Array())
    ),
  );
  const bytes = Buffer.concat(files);
  return markers.filter((marker) => bytes.includes(Buffer.from(marker))).length;
}

Deno.test("SqliteKeyStore: an erased key is in no file of the store once the erase resolves, while it stays open", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/keys.sqlite`;
  const store = await SqliteKeyStore.open(path);
  try {
    const marker = (i: number) => new TextEncoder().encode(`wrapped-key-${i}-`.padEnd(60, "k"));
    const place = (i: number) => ({ owner: OWNER, memoryId: `m${i}`, keyTag: "0a" });
    await Promise.all(Array.from({ length: 400 }, (_, i) => store.put(place(i), marker(i))));
    const erased = Array.from({ length: 200 }, (_, i) => marker(i));
    assert.equal(await held(path, erased), 200, "the keys are on disk");
    await store.erase(OWNER, Array.from({ length: 200 }, (_, i) => `m${i}`));
    assert.equal(await held(path, erased), 0);
    assert.equal(await store.get(place(0)), null);
    assert.deepEqual(await store.get(place(399)), marker(399));
    // A put and an erase of the same turn: the erase reaches the put.
    const late = store.put(place(500), marker(500));
    await store.erase(OWNER, ["m500"]);
    await late;
    assert.equal(await store.get(place(500)), null);
    assert.equal(await held(path, [marker(500)]), 0);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
  await assert.rejects(
    () => store.put({ owner: OWNER, memoryId: "late", keyTag: "00" }, new Uint8Array(60)),
    (error) => error instanceof SvcError && error.code === "backend_unavailable",
  );
});

Deno.test("LocalCipher: the Deno KV key store of an earlier version is moved into keys.sqlite, then deleted", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const options = { masterKey, keyStorePath: `${dir}/keys.sqlite` };
    const importKeysFrom = `${dir}/keys.kv`;
    // What an earlier version wrote: the keys under ["key", owner, memory id, key tag].
    const memory = new MemoryKeyStore();
    const written: [KeyPlace, Uint8Array<ArrayBuffer>][] = [];
    const recording: KeyStore = {
      put: (place, wrapped) => (written.push([place, wrapped]), memory.put(place, wrapped)),
      get: (place) => memory.get(place),
      erase: (owner, ids) => memory.erase(owner, ids),
      close: () => memory.close(),
    };
    const before = await LocalCipher.open({ masterKey, keyStore: recording });
    const sealed = await before.encrypt(OWNER, enc("I am vegetarian"), { memoryId: "m1" });
    const kv = await Deno.openKv(importKeysFrom);
    for (const [{ owner, memoryId, keyTag }, wrapped] of written) {
      await kv.set(["key", owner, memoryId, keyTag], wrapped);
    }
    kv.close();
    const moved = async () => {
      const keyStore = await SqliteKeyStore.open(options.keyStorePath);
      await importKvKeys(importKeysFrom, keyStore);
      return await LocalCipher.open({ masterKey, keyStore });
    };
    {
      await using cipher = await moved();
      assert.equal(dec(await cipher.decrypt(OWNER, sealed)), "I am vegetarian");
    }
    const names = () => Array.fromAsync(Deno.readDir(dir), (entry) => entry.name);
    assert.deepEqual((await names()).filter((name) => name.startsWith("keys.kv")), []);
    // A move interrupted after deleting the database left its log: the next open deletes it.
    await Deno.writeFile(`${importKeysFrom}-wal`, new Uint8Array(32));
    await using cipher = await moved();
    assert.equal(dec(await cipher.decrypt(OWNER, sealed)), "I am vegetarian");
    assert.deepEqual((await names()).filter((name) => name.startsWith("keys.kv")), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

localCipherKeyStoreSuite("LocalCipher on SqliteKeyStore", async () => {
  const dir = await Deno.makeTempDir();
  return {
    open: () => SqliteKeyStore.open(`${dir}/keys.sqlite`),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
});

Deno.test("LocalCipher: a key store and a key store path together are refused", async () => {
  await assert.rejects(
    () =>
      LocalCipher.open({
        masterKey: new Uint8Array(32),
        keyStore: new MemoryKeyStore(),
        keyStorePath: "keys.sqlite",
      }),
    TypeError,
  );
});

Deno.test("LocalCipher: a key store is refused under another master key, before anything is written", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const keyStorePath = `${dir}/keys.sqlite`;
    const other = crypto.getRandomValues(new Uint8Array(32));
    // An empty store takes any key.
    await (await LocalCipher.open({ masterKey: other, keyStorePath })).close();
    let sealed: Uint8Array<ArrayBuffer>;
    {
      await using cipher = await LocalCipher.open({ masterKey, keyStorePath });
      sealed = await cipher.encrypt(OWNER, enc("I am vegetarian"), { memoryId: "m1" });
    }
    await assert.rejects(
      LocalCipher.open({ masterKey: other, keyStorePath }),
      (error) =>
        error instanceof SvcError && error.code === "conflict" &&
        error.message.includes("wrapped under another master key") &&
        error.message.includes(keyStorePath),
    );
    await using cipher = await LocalCipher.open({ masterKey, keyStorePath });
    assert.equal(dec(await cipher.decrypt(OWNER, sealed)), "I am vegetarian");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LocalCipher: a key store whose first key is a job's text key (wrapped otherwise) is not refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const keyStorePath = `${dir}/keys.sqlite`;
    const store = await SqliteKeyStore.open(keyStorePath);
    // Sorted first: its memory id; as long as a memory's wrapped key.
    const jobKey = { owner: OWNER, memoryId: "0-job", keyTag: "0000000000000000" };
    await store.put(jobKey, crypto.getRandomValues(new Uint8Array(60)));
    await store.close();
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    await (await LocalCipher.open({ masterKey, keyStorePath })).close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LocalCipher: a given SqliteKeyStore is checked as one opened from its path, and closed only when the cipher owns it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const keyStore = await SqliteKeyStore.open(`${dir}/keys.sqlite`);
    const cipher = await LocalCipher.open({ masterKey, keyStore, closesKeyStore: false });
    const sealed = await cipher.encrypt(OWNER, enc("I am vegetarian"), { memoryId: "m1" });
    await cipher.close();
    // Still open: its opener closes it.
    assert.ok(
      await keyStore.get({ owner: OWNER, memoryId: "m1", keyTag: sealed.subarray(4, 12).toHex() }),
    );
    await assert.rejects(
      LocalCipher.open({
        masterKey: crypto.getRandomValues(new Uint8Array(32)),
        keyStore,
        closesKeyStore: false,
      }),
      (error) => error instanceof SvcError && error.code === "conflict",
    );
    await using again = await LocalCipher.open({ masterKey, keyStore });
    assert.equal(dec(await again.decrypt(OWNER, sealed)), "I am vegetarian");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
