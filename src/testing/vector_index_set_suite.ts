/**
 * The conformance suite of `VectorIndexSet` (and of `VectorStore.partitions`, which a reindex
 * walks): named indexes kept apart, the active one persisted, removal.
 */
import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import type { VectorIndexSet, VectorRow } from "../backends/types.ts";

/**
 * A set under test, disposed after its test. A persistent set also has `reopen`, which opens
 * its data again as a new set (what a restart sees).
 */
export type VectorIndexSetUnderTest = VectorIndexSet & AsyncDisposable & {
  reopen?: () => Promise<VectorIndexSet>;
};

const unit = (dimensions: number, i: number) =>
  Array.from({ length: dimensions }, (_, j) => (j === i ? 1 : 0));
const row = (id: string, owner: string, namespace: string, vector: number[]): VectorRow => ({
  id,
  owner,
  namespace,
  blobId: `blob-${id}`,
  vector,
  createdAt: 1,
});

/** Registers the vector index set tests, for the fresh sets `open` makes. */
export function vectorIndexSetSuite(name: string, open: () => Promise<VectorIndexSetUnderTest>) {
  Deno.test(`${name}: a second index lives beside the first, with its own embedder`, async () => {
    await using set = await open();
    assert.equal(await set.active(), "index");
    assert.equal(await set.built("index"), null);
    const first = await set.open("index", { model: "a", dimensions: 4 });
    const second = await set.open("index-2", { model: "b", dimensions: 6 });
    try {
      assert.deepEqual(await set.built("index"), { model: "a", dimensions: 4 });
      assert.deepEqual(await set.built("index-2"), { model: "b", dimensions: 6 });
      await first.upsert([row("x", "o1", "n1", unit(4, 0))]);
      await second.upsert([row("y", "o1", "n1", unit(6, 5)), row("z", "o2", "n2", unit(6, 1))]);
      assert.deepEqual([...await first.has(["x", "y"])], ["x"]);
      assert.deepEqual([...await second.has(["x", "y"])], ["y"]);
      assert.equal(second.dimensions, 6);
      assert.deepEqual(await second.partitions?.(), [
        { owner: "o1", namespace: "n1", count: 1 },
        { owner: "o2", namespace: "n2", count: 1 },
      ]);
    } finally {
      await first.close();
      await second.close();
    }
    await assert.rejects(
      set.open("index-2", { model: "c", dimensions: 6 }),
      (error) => error instanceof SvcError && /"b"/.test(error.message),
    );
  });

  Deno.test(`${name}: activate persists the active index; the active one cannot be removed`, async () => {
    await using set = await open();
    await (await set.open("index", { model: "a", dimensions: 4 })).close();
    const next = await set.open("index-2", { model: "b", dimensions: 4 });
    await next.upsert([row("kept", "o1", "n1", unit(4, 2))]);
    await next.close();
    await set.activate("index-2");
    assert.equal(await set.active(), "index-2");
    await assert.rejects(
      set.remove("index-2"),
      (error) => error instanceof SvcError && error.code === "conflict",
    );
    await set.remove("index");
    assert.equal(await set.built("index"), null);
    await set.remove("never-made");
    const again = await set.reopen?.() ?? set;
    assert.equal(await again.active(), "index-2");
    assert.deepEqual(await again.built("index-2"), { model: "b", dimensions: 4 });
    const store = await again.open("index-2", { model: "b", dimensions: 4 });
    try {
      assert.deepEqual([...await store.has(["kept"])], ["kept"]);
    } finally {
      await store.close();
    }
    // A removed index opens again empty.
    const fresh = await again.open("index", { model: "c", dimensions: 3 });
    try {
      assert.equal(await fresh.count(), 0);
    } finally {
      await fresh.close();
    }
  });

  Deno.test(`${name}: a name that is not one is refused`, async () => {
    await using set = await open();
    for (const bad of ["", "../index", "Index", "a b", "-x", "x".repeat(41)]) {
      await assert.rejects(
        set.open(bad, { model: "a", dimensions: 4 }),
        (error) => error instanceof SvcError && error.code === "bad_request",
        bad,
      );
    }
  });
}
