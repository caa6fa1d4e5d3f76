import assert from "node:assert/strict";
import { FsBlobStore } from "./mod.ts";

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

Deno.test("FsBlobStore: the same bytes put for another memory keep the first put's metadata", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await FsBlobStore.open({ dir });
    const bytes = new TextEncoder().encode("ciphertext");
    const blobId = await store.put(bytes, meta);
    const other = { ...meta, namespace: "n2", memoryId: "m2" };
    assert.equal(await store.put(bytes, other), blobId);
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
