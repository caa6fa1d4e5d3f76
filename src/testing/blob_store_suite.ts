/** The blob store conformance suite: every `BlobStore` must pass it. */
import assert from "node:assert/strict";
import type { BlobStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { refusesAborted } from "./refuses_aborted.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/**
 * Registers the blob store tests, for the fresh stores `open` makes; a store with
 * `Symbol.asyncDispose` is disposed after its test.
 */
export function blobStoreSuite(
  name: string,
  open: () => Promise<BlobStore & Partial<AsyncDisposable>>,
  options: {
    /**
     * What a put of bytes already stored for another memory does: `refused` (a
     * content-addressed store, whose blob belongs to one memory) fails with `conflict`;
     * `copied` (Walrus) stores a copy of its own for that memory, under the same id.
     */
    sameBytes?: "refused" | "copied";
  } = {},
) {
  const { sameBytes = "refused" } = options;
  Deno.test(`${name}: the same bytes for another memory are ${sameBytes}`, async () => {
    const store = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await store[Symbol.asyncDispose]?.() };
    const meta = { owner: "o1", namespace: "n1", memoryId: "m1", createdAt: 1 };
    const id = await store.put(enc("mine"), meta);
    assert.equal(await store.put(enc("mine"), meta), id, "again for its memory: the same blob");
    const other = { owner: "o2", namespace: "n2", memoryId: "m2", createdAt: 2 };
    if (sameBytes === "refused") {
      await assert.rejects(
        store.put(enc("mine"), other),
        (error) => error instanceof SvcError && error.code === "conflict",
      );
      assert.deepEqual(await store.list("o2", "n2"), []);
    } else {
      assert.equal(await store.put(enc("mine"), other), id);
      assert.deepEqual((await store.list("o2", "n2")).map((e) => e.meta), [other]);
    }
    assert.deepEqual((await store.list("o1", "n1")).map((e) => e.meta), [meta]);
    assert.deepEqual(await store.get(id), enc("mine"));
  });

  Deno.test(`${name}: a delete naming a memory leaves what another memory stored`, async () => {
    const store = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await store[Symbol.asyncDispose]?.() };
    const meta = { owner: "o1", namespace: "n1", memoryId: "m1", createdAt: 1 };
    const other = { owner: "o2", namespace: "n2", memoryId: "m2", createdAt: 2 };
    const id = await store.put(enc("shared"), meta);
    if (sameBytes === "copied") await store.put(enc("shared"), other);
    await store.delete(id, { memoryId: "m3" });
    assert.deepEqual((await store.list("o1", "n1")).map((e) => e.meta), [meta]);

    await store.delete(id, { memoryId: sameBytes === "copied" ? "m1" : "m2" });
    assert.deepEqual(await store.get(id), enc("shared"), "another memory's blob stays");
    if (sameBytes === "copied") {
      assert.deepEqual(await store.list("o1", "n1"), [], "this memory's copy went");
      assert.deepEqual((await store.list("o2", "n2")).map((e) => e.meta), [other]);
    } else assert.deepEqual((await store.list("o1", "n1")).map((e) => e.meta), [meta]);

    await store.delete(id, { memoryId: sameBytes === "copied" ? "m2" : "m1" });
    assert.equal(await store.get(id), null);
    assert.deepEqual([...await store.list("o1", "n1"), ...await store.list("o2", "n2")], []);
  });

  Deno.test(`${name}: put is content-addressed and get returns the bytes`, async () => {
    const store = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await store[Symbol.asyncDispose]?.() };
    const meta = { owner: "o1", namespace: "n1", memoryId: "m1", createdAt: 1 };
    const id = await store.put(enc("hello"), meta);
    assert.match(id, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(await store.put(enc("hello"), meta), id);
    assert.notEqual(await store.put(enc("hello!"), { ...meta, memoryId: "m2" }), id);
    assert.deepEqual(await store.get(id), enc("hello"));
    assert.equal(await store.get("A".repeat(43)), null);
    assert.equal(await store.get("../../etc/passwd"), null);
  });

  Deno.test(`${name}: list gives one owner's namespace, newest first, with metadata`, async () => {
    const store = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await store[Symbol.asyncDispose]?.() };
    for (
      const [i, owner, namespace] of [[1, "o1", "n1"], [3, "o1", "n1"], [2, "o1", "n1"], [
        4,
        "o1",
        "n2",
      ], [5, "o2", "n1"]] as const
    ) {
      await store.put(enc(`blob ${i}`), { owner, namespace, memoryId: `m${i}`, createdAt: i });
    }
    const listed = await store.list("o1", "n1");
    assert.deepEqual(listed.map((e) => e.meta.memoryId), ["m3", "m2", "m1"]);
    assert.deepEqual(listed[0].meta, {
      owner: "o1",
      namespace: "n1",
      memoryId: "m3",
      createdAt: 3,
    });
    assert.deepEqual(await store.get(listed[0].blobId), enc("blob 3"));
    assert.deepEqual((await store.list("o1", "n1", { limit: 2 })).map((e) => e.meta.memoryId), [
      "m3",
      "m2",
    ]);
    assert.deepEqual(await store.list("o9", "n1"), []);
  });

  Deno.test(`${name}: a sealed vector and sealed attributes are kept as given; a clear vector is never stored`, async () => {
    const store = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await store[Symbol.asyncDispose]?.() };
    const sealed = (bytes: number) =>
      crypto.getRandomValues(new Uint8Array(bytes)).toBase64({
        alphabet: "base64url",
        omitPadding: true,
      });
    // Longer than one Walrus attribute value (15,000 bytes): a 1,536-float64 vector, sealed;
    // and the most attributes a memory has (16 tags of 64 characters, a thread, a label).
    const sealedVector = sealed(12_316);
    const sealedAttributes = sealed(1_800);
    const meta = {
      owner: "o1",
      namespace: "n1",
      memoryId: "m1",
      createdAt: 1,
      sealedVector,
      sealedAttributes,
    };
    await store.put(enc("manual"), meta);
    // A caller passing more than BlobMeta (a clear vector, as versions up to 0.1.0 stored).
    const clear = { owner: "o1", namespace: "n1", memoryId: "m2", createdAt: 2, vector: [0.5] };
    await store.put(enc("other"), clear);
    const listed = await store.list("o1", "n1");
    assert.deepEqual(listed.map((e) => e.meta), [
      { owner: "o1", namespace: "n1", memoryId: "m2", createdAt: 2 },
      meta,
    ]);
  });

  Deno.test(`${name}: an aborted signal is refused`, async () => {
    const store = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await store[Symbol.asyncDispose]?.() };
    const meta = { owner: "o1", namespace: "n1", memoryId: "m1", createdAt: 1 };
    const id = await store.put(enc("kept"), meta);
    await refusesAborted((o) => store.put(enc("refused"), { ...meta, memoryId: "m2" }, o), "put");
    await refusesAborted((o) => store.get(id, o), "get");
    await refusesAborted((o) => store.list("o1", "n1", o), "list");
    await refusesAborted((o) => store.delete(id, o), "delete");
    const listed = await store.list("o1", "n1");
    assert.deepEqual(listed.map((e) => e.meta.memoryId), ["m1"], "nothing was stored");
    assert.deepEqual(await store.get(id), enc("kept"), "nothing was deleted");
  });

  Deno.test(`${name}: delete removes a blob from get and list, and leaves the others`, async () => {
    const store = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await store[Symbol.asyncDispose]?.() };
    const ids: string[] = [];
    for (const i of [1, 2, 3]) {
      const meta = { owner: "o1", namespace: "n1", memoryId: `m${i}`, createdAt: i };
      ids.push(await store.put(enc(`erasable ${i}`), meta));
    }
    assert.deepEqual(await store.get(ids[1]), enc("erasable 2"), "read once (and cached)");

    await store.delete(ids[1]);
    assert.equal(await store.get(ids[1]), null);
    assert.deepEqual((await store.list("o1", "n1")).map((e) => e.meta.memoryId), ["m3", "m1"]);
    assert.deepEqual(
      (await store.list("o1", "n1", { limit: 1 })).map((e) => e.meta.memoryId),
      ["m3"],
    );
    assert.deepEqual(await store.get(ids[0]), enc("erasable 1"));
    assert.deepEqual(await store.get(ids[2]), enc("erasable 3"));

    // Twice, unknown and malformed ids: nothing to do, and no error.
    await store.delete(ids[1]);
    await store.delete("A".repeat(43));
    await store.delete("../../etc/passwd");
    await store.delete("");
    assert.deepEqual((await store.list("o1", "n1")).map((e) => e.meta.memoryId), ["m3", "m1"]);

    // Deleted, then put again: stored anew.
    const meta = { owner: "o1", namespace: "n1", memoryId: "m4", createdAt: 4 };
    assert.equal(await store.put(enc("erasable 2"), meta), ids[1]);
    assert.deepEqual(await store.get(ids[1]), enc("erasable 2"));
    assert.deepEqual((await store.list("o1", "n1")).map((e) => e.meta.memoryId), [
      "m4",
      "m3",
      "m1",
    ]);
  });
}
