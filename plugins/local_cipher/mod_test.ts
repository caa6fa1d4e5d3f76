import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { SqliteBlobStore } from "@svc/sqlite-blob";
import { KvKeyStore, MemoryKeyStore } from "./key_store.ts";
import { localCipherKeyStoreSuite } from "./key_store_suite.ts";
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

/** Copies `keys.kv` and whatever -wal/-shm files SQLite has beside it. */
async function copyKeyStore(dir: string, to: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith("keys.kv")) {
      await Deno.copyFile(`${dir}/${entry.name}`, `${to}/${entry.name}`);
    }
  }
}

Deno.test("LocalCipher: after erase, a copy of the blob store taken before it does not decrypt with the master key and the key store as they are after the erase", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const keyStorePath = `${dir}/keys.kv`;
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
      keyStorePath: `${dir}/keys-backup/keys.kv`,
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

/** A Deno KV handle that counts the atomic commits made through it. */
function countingKv(
  kv: Deno.Kv,
): { kv: Deno.Kv; commits(): number; reads: Deno.KvKey[][] } {
  let commits = 0;
  /** The keys of each read: a `get` reads one, a `getMany` several. */
  const reads: Deno.KvKey[][] = [];
  const counted = new Proxy(kv, {
    get(target, property) {
      if (property === "get") return (key: Deno.KvKey) => (reads.push([key]), target.get(key));
      if (property === "getMany") {
        return (keys: Deno.KvKey[]) => (reads.push(keys), target.getMany(keys));
      }
      if (property === "atomic") {
        return () => {
          const operation = target.atomic();
          const commit = operation.commit.bind(operation);
          operation.commit = () => {
            commits++;
            return commit();
          };
          return operation;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: counted, commits: () => commits, reads };
}

Deno.test("KvKeyStore: puts made together are one commit; past Deno KV's limits, several", async () => {
  const { kv, commits } = countingKv(await Deno.openKv(":memory:"));
  const store = new KvKeyStore(kv);
  try {
    const id = (i: number) => `m${i}`.padEnd(36, "-"); // as long as a UUID
    const place = (i: number) => ({ owner: OWNER, memoryId: id(i), keyTag: i.toString(16) });
    const wrapped = crypto.getRandomValues(new Uint8Array(60));
    await Promise.all(Array.from({ length: 64 }, (_, i) => store.put(place(i), wrapped)));
    assert.equal(commits(), 1);
    // 1,500 keys of about 120 bytes: over the 1,000 mutations a commit takes, and in two
    // commits still over its 80 KiB of keys: at least three.
    const many = Array.from({ length: 1500 }, (_, i) => store.put(place(100 + i), wrapped));
    await Promise.all(many);
    assert.ok(commits() >= 1 + 3, `${commits()} commits`);
    for (const i of [0, 63, 100, 1599]) assert.deepEqual(await store.get(place(i)), wrapped);
    await store.erase(OWNER, Array.from({ length: 1600 }, (_, i) => id(i)));
    assert.equal(await store.get(place(1599)), null);
    assert.equal((await Array.fromAsync(kv.list({ prefix: [] }))).length, 0);
  } finally {
    await store.close();
  }
  await assert.rejects(
    () => store.put({ owner: OWNER, memoryId: "late", keyTag: "00" }, new Uint8Array(60)),
    (error) => error instanceof SvcError && error.code === "backend_unavailable",
  );
});

Deno.test("KvKeyStore: gets made together are read ten keys to a getMany, each answered with its own key", async () => {
  const { kv, reads } = countingKv(await Deno.openKv(":memory:"));
  const store = new KvKeyStore(kv);
  const place = (i: number) => ({ owner: OWNER, memoryId: `m${i}`, keyTag: "0a" });
  const wrapped = (i: number) => new Uint8Array(60).fill(i);
  try {
    await Promise.all(Array.from({ length: 24 }, (_, i) => store.put(place(i), wrapped(i))));
    // 25 keys, the last never stored.
    const got = await Promise.all(Array.from({ length: 25 }, (_, i) => store.get(place(i))));
    assert.deepEqual(got, [...Array.from({ length: 24 }, (_, i) => wrapped(i)), null]);
    assert.deepEqual(reads.map((keys) => keys.length), [10, 10, 5]);
    // A get of a later turn is a read of its own.
    assert.deepEqual(await store.get(place(3)), wrapped(3));
    assert.deepEqual(reads.map((keys) => keys.length), [10, 10, 5, 1]);
  } finally {
    await store.close();
  }
  // Reads that fail (here the store is closed) fail every get of theirs, with a clear error.
  const late = await Promise.allSettled([store.get(place(1)), store.get(place(2))]);
  for (const result of late) {
    assert.equal(result.status, "rejected");
    const { reason } = result as PromiseRejectedResult;
    assert.ok(reason instanceof SvcError && reason.code === "backend_unavailable", String(reason));
  }
});

localCipherKeyStoreSuite("LocalCipher on KvKeyStore", async () => {
  const dir = await Deno.makeTempDir();
  return {
    open: async () => new KvKeyStore(await Deno.openKv(`${dir}/keys.kv`)),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
});

Deno.test("LocalCipher: a key store and a key store path together are refused", async () => {
  await assert.rejects(
    () =>
      LocalCipher.open({
        masterKey: new Uint8Array(32),
        keyStore: new MemoryKeyStore(),
        keyStorePath: "keys.kv",
      }),
    TypeError,
  );
});

Deno.test("LocalCipher: a key store is refused under another master key, before anything is written", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const masterKey = crypto.getRandomValues(new Uint8Array(32));
    const keyStorePath = `${dir}/keys.kv`;
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
