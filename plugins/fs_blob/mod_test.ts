import assert from "node:assert/strict";
import { FsBlobStore } from "./mod.ts";
import { SvcError } from "../../src/kit.ts";

const meta = { owner: "0xowner", namespace: "n1", memoryId: "m1", createdAt: 1_700_000_000_000 };

/** The files of one blob: its bytes, its metadata, and the entry `list` reads. */
async function filesOf(store: FsBlobStore, blobId: string) {
  const object = `${store.root}/objects/${blobId.slice(0, 2)}/${blobId}`;
  const [entry] = await Array.fromAsync(walk(`${store.root}/index`));
  return { object, meta: `${object}.json`, entry };
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const item of Deno.readDir(dir)) {
    if (item.isDirectory) yield* walk(`${dir}/${item.name}`);
    else yield `${dir}/${item.name}`;
  }
}

for (const cut of ["entry", "meta"] as const) {
  Deno.test(`FsBlobStore: a put cut short before its ${cut} is completed by the same put again`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      const store = await FsBlobStore.open({ dir });
      const bytes = new TextEncoder().encode("ciphertext");
      const blobId = await store.put(bytes, meta);
      const files = await filesOf(store, blobId);
      // What a crash at that point leaves: the files written before it.
      await Deno.remove(files.entry);
      if (cut === "meta") await Deno.remove(files.meta);
      assert.deepEqual(await store.list(meta.owner, meta.namespace), []);

      assert.equal(await store.put(bytes, meta), blobId);
      assert.deepEqual(await store.list(meta.owner, meta.namespace), [{ blobId, meta }]);
      assert.deepEqual(await store.get(blobId), bytes);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("FsBlobStore: the same bytes for another memory are refused and leave the first", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const bytes = new TextEncoder().encode("ciphertext");
    const blobId = await store.put(bytes, meta);
    const other = { ...meta, namespace: "n2", memoryId: "m2" };
    await assert.rejects(
      store.put(bytes, other),
      (error) => error instanceof SvcError && error.code === "conflict",
    );
    assert.deepEqual(await store.list(meta.owner, "n1"), [{ blobId, meta }]);
    assert.deepEqual(await store.list(meta.owner, "n2"), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FsBlobStore: a manual memory's metadata file of 0.1.0, with a clear vector, lists it as legacyVector", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const blobId = await store.put(new TextEncoder().encode("client ciphertext"), meta);
    const vector = [0.25, -1, 1e-300];
    // What 0.1.0 wrote for a manual memory: the metadata with the client's vector in clear.
    await Deno.writeTextFile(
      (await filesOf(store, blobId)).meta,
      JSON.stringify({ ...meta, vector }),
    );
    assert.deepEqual(await store.list(meta.owner, "n1"), [
      { blobId, meta: { ...meta, legacyVector: vector } },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FsBlobStore: the metadata file holds a sealed vector as given, and nothing else", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const stored = { ...meta, sealedVector: "c2VhbGVk_-0" };
    const blobId = await store.put(new TextEncoder().encode("client ciphertext"), stored);
    const json = JSON.parse(await Deno.readTextFile((await filesOf(store, blobId)).meta));
    assert.deepEqual(json, stored);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (const cut of ["bytes", "metadata"] as const) {
  Deno.test(`FsBlobStore: a blob's ${cut} cut short by a crash are written whole by the same put again`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      const store = await FsBlobStore.open({ dir });
      const bytes = new TextEncoder().encode("ciphertext of a memory");
      const blobId = await store.put(bytes, meta);
      const files = await filesOf(store, blobId);
      // What a kill while writing leaves: the file created under its name, cut short; the
      // entry `list` reads not made yet.
      await Deno.remove(files.entry);
      if (cut === "bytes") await Deno.writeFile(files.object, bytes.slice(0, 5));
      else await Deno.writeTextFile(files.meta, "");
      assert.deepEqual(await store.list(meta.owner, meta.namespace), []);

      assert.equal(await store.put(bytes, meta), blobId);
      assert.deepEqual(await store.get(blobId), bytes);
      assert.deepEqual(await store.list(meta.owner, meta.namespace), [{ blobId, meta }]);
      assert.deepEqual(JSON.parse(await Deno.readTextFile(files.meta)), meta);
      for (const path of [files.object, files.meta]) {
        assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600, "private to the owner");
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("FsBlobStore: many puts at once, in the same and new folders, are all listed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const items = Array.from({ length: 40 }, (_, i) => ({
      bytes: new TextEncoder().encode(`ciphertext ${i}`),
      meta: { ...meta, namespace: `n${i % 3}`, memoryId: `m${i}`, createdAt: 1000 + i },
    }));
    const ids = await Promise.all(items.map(({ bytes, meta }) => store.put(bytes, meta)));
    for (const [i, id] of ids.entries()) assert.deepEqual(await store.get(id), items[i].bytes);
    for (const namespace of ["n0", "n1", "n2"]) {
      const listed = await store.list(meta.owner, namespace);
      const expected = items.filter((item) => item.meta.namespace === namespace).reverse();
      assert.deepEqual(listed.map((entry) => entry.meta), expected.map((item) => item.meta));
    }
    // A second store on the same folder (a restart) knows none of the folders made.
    const again = await FsBlobStore.open({ dir });
    assert.equal(await again.put(items[0].bytes, items[0].meta), ids[0]);
    assert.equal((await again.list(meta.owner, "n0")).length, 14);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FsBlobStore: delete removes the bytes, the metadata and the listing entry", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const kept = await store.put(new TextEncoder().encode("kept"), { ...meta, memoryId: "m0" });
    const keptFiles = await Array.fromAsync(walk(dir));
    const blobId = await store.put(new TextEncoder().encode("erased"), meta);
    const files = await filesOf(store, blobId);
    await store.delete(blobId);
    for (const path of [files.object, files.meta]) {
      await assert.rejects(() => Deno.stat(path), Deno.errors.NotFound, path);
    }
    assert.deepEqual((await Array.fromAsync(walk(dir))).sort(), keptFiles.sort());
    assert.deepEqual((await store.list(meta.owner, meta.namespace)).map((e) => e.blobId), [kept]);
    // A second store on the folder (a restart) sees the same.
    const again = await FsBlobStore.open({ dir });
    assert.equal(await again.get(blobId), null);
    assert.deepEqual((await again.list(meta.owner, meta.namespace)).map((e) => e.blobId), [kept]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FsBlobStore: a delete cut short by a crash is finished by the same delete again", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const bytes = new TextEncoder().encode("erased");
    for (const cut of ["entry", "entry and bytes"]) {
      const blobId = await store.put(bytes, meta);
      const files = await filesOf(store, blobId);
      // What a crash leaves: the first removals done, the metadata still there.
      await Deno.remove(files.entry);
      if (cut === "entry and bytes") await Deno.remove(files.object);
      await store.delete(blobId);
      assert.deepEqual(await Array.fromAsync(walk(`${dir}/objects`)), [], cut);
      assert.deepEqual(await Array.fromAsync(walk(`${dir}/index`)), [], cut);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FsBlobStore: an entry written as an empty file (no hard links, 0.1.0) is deleted too", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const blobId = await store.put(new TextEncoder().encode("old"), meta);
    const { entry } = await filesOf(store, blobId);
    await Deno.remove(entry);
    await Deno.writeFile(entry, new Uint8Array());
    assert.equal((await store.list(meta.owner, meta.namespace)).length, 1);
    await store.delete(blobId);
    assert.deepEqual(await Array.fromAsync(walk(`${dir}/index`)), []);
    assert.deepEqual(await store.list(meta.owner, meta.namespace), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FsBlobStore: delete never reaches outside the store, whatever the id", async () => {
  const parent = await Deno.makeTempDir();
  try {
    const dir = `${parent}/store`;
    const store = await FsBlobStore.open({ dir });
    // Files an id made into a path could name: beside the store, and in its own folders.
    await Deno.writeTextFile(`${parent}/outside`, "x");
    await Deno.writeTextFile(`${parent}/outside.json`, "{}");
    const blobId = await store.put(new TextEncoder().encode("kept"), meta);
    const before = (await Array.fromAsync(walk(parent))).sort();
    for (
      const id of [
        "../../outside",
        "../../../outside",
        `${blobId.slice(0, 42)}/`,
        `${blobId}/`,
        `${blobId.slice(0, 42)}.`,
        `${blobId}x`,
        "..",
        "",
      ]
    ) {
      await store.delete(id);
    }
    assert.deepEqual((await Array.fromAsync(walk(parent))).sort(), before);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("FsBlobStore: list while blobs are deleted skips them and still fills its limit", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const ids = [];
    for (let i = 0; i < 30; i++) {
      ids.push(await store.put(new TextEncoder().encode(`b${i}`), { ...meta, createdAt: i }));
    }
    const lists = Array.from({ length: 10 }, () => store.list(meta.owner, meta.namespace));
    const deletes = ids.filter((_, i) => i % 2 === 0).map((id) => store.delete(id));
    const [listed] = await Promise.all([Promise.all(lists), Promise.all(deletes)]);
    for (const entries of listed) {
      for (const { blobId } of entries) assert.ok(ids.includes(blobId));
    }
    const left = await store.list(meta.owner, meta.namespace, { limit: 10 });
    assert.deepEqual(
      left.map((e) => e.meta.createdAt),
      [29, 27, 25, 23, 21, 19, 17, 15, 13, 11],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
