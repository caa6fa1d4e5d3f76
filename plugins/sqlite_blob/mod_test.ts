import assert from "node:assert/strict";
import { BlobPlaces, SvcError } from "@svc/relayer/kit";
import { DatabaseSync } from "node:sqlite";
import { SqliteBlobStore } from "./mod.ts";

/** The relayer's secret the stores' names are hashed and sealed with. */
const SECRET = new Uint8Array(32).fill(7);

const meta = { owner: "0xowner", namespace: "n1", memoryId: "m1", createdAt: 1_700_000_000_000 };
const enc = (s: string) => new TextEncoder().encode(s);

/** A store in a temporary folder, removed (with the store closed) after `use`. */
async function withStore(use: (store: SqliteBlobStore, path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/blobs/blobs.sqlite`;
  const store = await SqliteBlobStore.open({ path, secret: SECRET });
  try {
    await use(store, path);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("SqliteBlobStore: what a put resolved is committed: another connection reads it, and it survives reopening", async () => {
  await withStore(async (store, path) => {
    const blobId = await store.put(enc("ciphertext"), meta);
    const other = await SqliteBlobStore.open({ path, secret: SECRET });
    try {
      assert.deepEqual(await other.get(blobId), enc("ciphertext"));
      assert.deepEqual(await other.list(meta.owner, meta.namespace), [{ blobId, meta }]);
    } finally {
      await other.close();
    }
    await store.close();
    const reopened = await SqliteBlobStore.open({ path, secret: SECRET });
    try {
      assert.deepEqual(await reopened.get(blobId), enc("ciphertext"));
    } finally {
      await reopened.close();
    }
  });
});

Deno.test("SqliteBlobStore: many puts at once are all stored and listed, newest first", async () => {
  await withStore(async (store) => {
    const ids = await Promise.all(
      Array.from(
        { length: 300 },
        (_, i) => store.put(enc(`blob ${i}`), { ...meta, memoryId: `m${i}`, createdAt: i }),
      ),
    );
    assert.equal(new Set(ids).size, 300);
    const listed = await store.list(meta.owner, meta.namespace);
    assert.deepEqual(
      listed.map((e) => e.meta.createdAt),
      Array.from({ length: 300 }, (_, i) => 299 - i),
    );
    assert.deepEqual(await store.get(ids[123]), enc("blob 123"));
  });
});

Deno.test("SqliteBlobStore: the same bytes for another memory, even in the same turn, are refused and leave the first", async () => {
  await withStore(async (store) => {
    const other = { ...meta, namespace: "n2", memoryId: "m2" };
    const conflict = (error: unknown) => error instanceof SvcError && error.code === "conflict";
    const [first, second, again] = await Promise.allSettled([
      store.put(enc("ciphertext"), meta),
      store.put(enc("ciphertext"), other),
      store.put(enc("ciphertext"), meta),
    ]);
    assert.ok(second.status === "rejected" && conflict(second.reason));
    assert.ok(first.status === "fulfilled" && again.status === "fulfilled");
    assert.equal(again.value, first.value);
    await assert.rejects(store.put(enc("ciphertext"), other), conflict);
    assert.deepEqual(await store.list(meta.owner, "n1"), [{ blobId: first.value, meta }]);
    assert.deepEqual(await store.list(meta.owner, "n2"), []);
  });
});

Deno.test("SqliteBlobStore: puts and deletes of the same turn apply in the order asked", async () => {
  await withStore(async (store) => {
    const blobId = await store.put(enc("kept"), meta);
    const gone = await store.put(enc("gone"), { ...meta, memoryId: "m2" });
    await Promise.all([
      store.delete(blobId),
      store.put(enc("kept"), meta),
      store.put(enc("gone"), { ...meta, memoryId: "m2" }),
      store.delete(gone),
    ]);
    assert.deepEqual(await store.get(blobId), enc("kept"), "deleted, then put again");
    assert.equal(await store.get(gone), null, "put again, then deleted");
    assert.deepEqual((await store.list(meta.owner, meta.namespace)).map((e) => e.blobId), [blobId]);
  });
});

Deno.test("SqliteBlobStore: delete ignores unknown and malformed ids", async () => {
  await withStore(async (store) => {
    const blobId = await store.put(enc("ciphertext"), meta);
    await store.delete("A".repeat(43));
    await store.delete("../../etc/passwd");
    await store.delete("' OR 1=1 --");
    assert.deepEqual(await store.get(blobId), enc("ciphertext"));
  });
});

Deno.test("SqliteBlobStore: entries gives every blob once, over several pages", async () => {
  await withStore(async (store) => {
    const ids = await Promise.all(
      Array.from(
        { length: 1_234 },
        (_, i) =>
          store.put(enc(`blob ${i}`), { ...meta, namespace: `n${i % 3}`, memoryId: `m${i}` }),
      ),
    );
    const seen = (await Array.fromAsync(store.entries())).map((e) => e.blobId);
    assert.equal(seen.length, 1_234);
    assert.deepEqual(new Set(seen), new Set(ids));
  });
});

Deno.test("SqliteBlobStore: a write the database refuses fails every write of its commit, and none is kept", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/blobs.sqlite`;
  try {
    const store = await SqliteBlobStore.open({ path, secret: SECRET });
    const kept = await store.put(enc("kept"), meta);
    await store.close();
    const writes = [
      store.put(enc("refused 1"), { ...meta, memoryId: "m2" }),
      store.put(enc("refused 2"), { ...meta, memoryId: "m3" }),
      store.delete(kept),
    ];
    for (const write of writes) {
      await assert.rejects(write, (error: Error & { status?: number }) => {
        assert.equal(error.status, 503);
        assert.match(error.message, /sqlite blob store/);
        return true;
      });
    }
    const reopened = await SqliteBlobStore.open({ path, secret: SECRET });
    try {
      assert.deepEqual((await reopened.list(meta.owner, meta.namespace)).map((e) => e.blobId), [
        kept,
      ]);
    } finally {
      await reopened.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteBlobStore: a put with unfit metadata is refused alone; the puts beside it are stored", async () => {
  await withStore(async (store) => {
    const [refused, stored] = await Promise.allSettled([
      store.put(enc("refused"), { ...meta, createdAt: 1.5 }),
      store.put(enc("stored"), { ...meta, memoryId: "m2" }),
    ]);
    assert.equal(refused.status, "rejected");
    assert.equal((refused as PromiseRejectedResult).reason.status, 400);
    assert.equal(stored.status, "fulfilled");
    assert.deepEqual((await store.list(meta.owner, meta.namespace)).map((e) => e.meta.memoryId), [
      "m2",
    ]);
  });
});

Deno.test("SqliteBlobStore: a put keeps the bytes it was given, whatever the caller does with them after", async () => {
  await withStore(async (store) => {
    const bytes = enc("ciphertext");
    const pending = store.put(bytes, meta);
    bytes.fill(0);
    const blobId = await pending;
    assert.deepEqual(await store.get(blobId), enc("ciphertext"));
  });
});

Deno.test("SqliteBlobStore: list's limit is as the other stores': none or not a number lists all, a negative one none", async () => {
  await withStore(async (store) => {
    for (const i of [1, 2, 3]) {
      await store.put(enc(`blob ${i}`), { ...meta, memoryId: `m${i}`, createdAt: i });
    }
    const count = async (limit?: number) =>
      (await store.list(meta.owner, meta.namespace, { limit })).length;
    assert.deepEqual(
      [
        await count(),
        await count(Infinity),
        await count(NaN),
        await count(2.5),
        await count(0),
        await count(-1),
      ],
      [3, 3, 3, 2, 0, 0],
    );
  });
});

Deno.test("SqliteBlobStore: a write resolves only once its commit's WAL is synced; a failed sync fails it", async () => {
  const syncData = Deno.FsFile.prototype.syncData;
  const walSyncs: PromiseWithResolvers<void>[] = [];
  Deno.FsFile.prototype.syncData = function () {
    const gate = Promise.withResolvers<void>();
    walSyncs.push(gate);
    return gate.promise.then(() => syncData.call(this));
  };
  try {
    await withStore(async (store, path) => {
      let resolved = false;
      const put = store.put(enc("synced"), meta).then((id) => (resolved = true, id));
      while (walSyncs.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      // Committed (another connection reads it), but not answered before the sync.
      const other = await SqliteBlobStore.open({ path, secret: SECRET });
      try {
        assert.equal((await other.list(meta.owner, meta.namespace)).length, 1);
      } finally {
        await other.close(); // it wrote nothing: no sync
      }
      assert.equal(resolved, false);
      walSyncs[0].resolve();
      assert.equal(await put, BlobPlaces.idOf(enc("synced")));

      const failing = store.put(enc("not synced"), { ...meta, memoryId: "m2" });
      while (walSyncs.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
      walSyncs[1].reject(new Error("disk gone"));
      await assert.rejects(failing, (error: Error & { status?: number }) => {
        assert.equal(error.status, 503);
        assert.match(error.message, /sqlite blob store/);
        return true;
      });
    });
  } finally {
    Deno.FsFile.prototype.syncData = syncData;
  }
});

Deno.test("SqliteBlobStore: a database an older version made gains the sealed attributes' column", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/blobs.sqlite`;
  try {
    // The table as versions before sealed attributes made it, with one blob in it.
    const old = new DatabaseSync(path);
    old.exec(
      "CREATE TABLE blobs (id TEXT NOT NULL UNIQUE, bytes BLOB NOT NULL, owner TEXT NOT NULL, " +
        "namespace TEXT NOT NULL, memory_id TEXT NOT NULL, created_at INTEGER NOT NULL, " +
        "sealed_vector TEXT) STRICT",
    );
    const first = enc("older ciphertext");
    old.prepare("INSERT INTO blobs VALUES (?, ?, ?, ?, ?, ?, NULL)")
      .run(
        BlobPlaces.idOf(first),
        first,
        meta.owner,
        meta.namespace,
        meta.memoryId,
        meta.createdAt,
      );
    old.close();
    const store = await SqliteBlobStore.open({ path, secret: SECRET });
    try {
      const second = { ...meta, memoryId: "m2", createdAt: meta.createdAt + 1 };
      const blobId = await store.put(enc("newer"), { ...second, sealedAttributes: "c2VhbGVk" });
      assert.deepEqual(await store.list(meta.owner, meta.namespace), [
        { blobId, meta: { ...second, sealedAttributes: "c2VhbGVk" } },
        { blobId: BlobPlaces.idOf(first), meta },
      ]);
    } finally {
      await store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Whether `text` is in any file of the folder of the database at `path`. */
async function onDisk(path: string, text: string): Promise<boolean> {
  const folder = path.slice(0, path.lastIndexOf("/"));
  const needle = new TextEncoder().encode(text);
  for await (const entry of Deno.readDir(folder)) {
    const bytes = await Deno.readFile(`${folder}/${entry.name}`);
    const at = bytes.findIndex((_, i) => needle.every((b, j) => bytes[i + j] === b));
    if (at >= 0) return true;
  }
  return false;
}

Deno.test("SqliteBlobStore: its files name no owner and no namespace", async () => {
  await withStore(async (store, path) => {
    const secretMeta = { ...meta, owner: "0xfeedbeef", namespace: "oncology-notes" };
    const blobId = await store.put(enc("ciphertext"), secretMeta);
    const [listed] = await store.list(secretMeta.owner, secretMeta.namespace);
    assert.equal(listed.blobId, blobId);
    assert.equal(listed.meta.namespace, "oncology-notes");
    assert.deepEqual((await store.list(secretMeta.owner, "other")).length, 0);
    const [entry] = await Array.fromAsync(store.entries());
    assert.deepEqual([entry.meta.owner, entry.meta.namespace], ["0xfeedbeef", "oncology-notes"]);
    assert.equal(await onDisk(path, "oncology-notes"), false);
    assert.equal(await onDisk(path, "0xfeedbeef"), false);
    // Another secret finds nothing and cannot read the names.
    const other = await SqliteBlobStore.open({ path, secret: new Uint8Array(32).fill(9) });
    try {
      assert.deepEqual(await other.list(secretMeta.owner, secretMeta.namespace), []);
      await assert.rejects(Array.fromAsync(other.entries()));
    } finally {
      await other.close();
    }
  });
});

Deno.test("SqliteBlobStore: a store an earlier version wrote, names in clear, is sealed at open", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/blobs.sqlite`;
  try {
    const old = new DatabaseSync(path);
    old.exec(`PRAGMA journal_mode = WAL;
      CREATE TABLE blobs (id TEXT NOT NULL UNIQUE, bytes BLOB NOT NULL, owner TEXT NOT NULL,
        namespace TEXT NOT NULL, memory_id TEXT NOT NULL, created_at INTEGER NOT NULL,
        sealed_vector TEXT) STRICT;
      CREATE INDEX blobs_listing ON blobs (owner, namespace, created_at, id);`);
    const bytes = enc("old ciphertext");
    old.prepare("INSERT INTO blobs VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(BlobPlaces.idOf(bytes), bytes, "0xfeedbeef", "oncology-notes", "m1", 5, null);
    old.close();
    assert.equal(await onDisk(path, "oncology-notes"), true);

    const store = await SqliteBlobStore.open({ path, secret: SECRET });
    try {
      assert.equal(store.upgraded, 1);
      const [listed] = await store.list("0xfeedbeef", "oncology-notes");
      assert.deepEqual([listed.blobId, listed.meta.memoryId], [BlobPlaces.idOf(bytes), "m1"]);
      assert.deepEqual(await store.get(BlobPlaces.idOf(bytes)), bytes);
      assert.equal(await onDisk(path, "oncology-notes"), false);
    } finally {
      await store.close();
    }
    const again = await SqliteBlobStore.open({ path, secret: SECRET });
    assert.equal(again.upgraded, 0);
    await again.close();

    // A rewrite that did not happen (the process stopped before it) is done at the next open.
    const cut = new DatabaseSync(path);
    cut.exec("PRAGMA user_version = 1; PRAGMA secure_delete = OFF");
    cut.exec(
      "INSERT INTO blobs (id, bytes, place, sealed_name, memory_id, created_at, sealed_vector) " +
        "VALUES ('x', x'00', x'00', x'00', 'm9', 1, 'oncology-notes')",
    );
    cut.exec("DELETE FROM blobs WHERE id = 'x'; PRAGMA wal_checkpoint(TRUNCATE)");
    cut.close();
    assert.equal(await onDisk(path, "oncology-notes"), true);
    const retried = await SqliteBlobStore.open({ path, secret: SECRET });
    await retried.close();
    assert.equal(await onDisk(path, "oncology-notes"), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
