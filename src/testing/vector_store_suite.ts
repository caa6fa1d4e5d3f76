/** The vector store conformance suite: every `VectorStore` must pass it. */
import assert from "node:assert/strict";
import type { MemoryInfo, TermsRow, VectorStore } from "../backends/types.ts";
import { refusesAborted } from "./refuses_aborted.ts";

/**
 * A vector store under test: disposed after its test. A persistent store also has `reopen`,
 * which closes it and opens its data again as a new store (which is disposed in its place),
 * so the suite checks what survives a restart.
 */
export type VectorStoreUnderTest = VectorStore & AsyncDisposable & {
  reopen?: () => Promise<VectorStoreUnderTest>;
};

/** A row of `terms` as plain data, sorted by id, a missing `info` left out. */
function plainTerms(rows: TermsRow[]): TermsRow[] {
  return rows.map(({ info, ...row }) => info === undefined ? row : { ...row, info })
    .sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Registers the vector store tests, for the fresh stores `open` makes with the given
 * dimensions; each store is disposed after its test. Where a store has `reopen`, the checks of
 * info and erase are made again on the reopened store.
 */
export function vectorStoreSuite(
  name: string,
  open: (dimensions: number) => Promise<VectorStoreUnderTest>,
) {
  /** A fresh store of 4 dimensions, `reopen`ed on demand (the same one if it cannot be). */
  const held = async () => {
    let store = await open(4);
    return {
      get store(): VectorStore {
        return store;
      },
      /** The store as it is now, then the same data reopened (when the store can be). */
      async *stages(): AsyncGenerator<VectorStore> {
        yield store;
        if (store.reopen) yield store = await store.reopen();
      },
      [Symbol.asyncDispose]: () => store[Symbol.asyncDispose](),
    };
  };

  const unit = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
  const row = (id: string, owner: string, namespace: string, vector: number[], createdAt = 1) => ({
    id,
    owner,
    namespace,
    blobId: `blob-${id}`,
    vector,
    createdAt,
  });

  Deno.test(`${name}: search is filtered by owner and namespace, nearest first`, async () => {
    await using store = await open(4);
    assert.equal(store.dimensions, 4);
    await store.upsert([
      row("a", "o1", "n1", unit(0)),
      row("b", "o1", "n1", [0.9, 0.1, 0, 0]),
      row("c", "o1", "n2", unit(0)),
      row("d", "o2", "n1", unit(0)),
      row("e", "o1", "n1", unit(1), 7),
    ]);
    const hits = await store.search("o1", "n1", unit(0), 10);
    assert.deepEqual(hits.map((h) => h.id), ["a", "b", "e"]);
    assert.ok(Math.abs(hits[0].distance) < 1e-6);
    assert.ok(Math.abs(hits[2].distance - 1) < 1e-6);
    assert.equal(hits[2].blobId, "blob-e");
    assert.equal(hits[2].createdAt, 7);
    assert.deepEqual((await store.search("o1", "n1", unit(0), 1)).map((h) => h.id), ["a"]);
    assert.deepEqual(await store.search("o3", "n1", unit(0), 5), []);
    assert.deepEqual(await store.search("o1", "it's", unit(0), 5), []);
  });

  Deno.test(`${name}: upsert replaces by id; has, delete and count agree`, async () => {
    await using store = await open(4);
    await store.upsert([row("a", "o1", "n1", unit(0)), row("b", "o1", "n2", unit(1))]);
    await store.upsert([row("a", "o1", "n1", unit(2))]);
    await Promise.all([1, 2, 3].map(() => store.upsert([row("c", "o1", "n1", unit(3))])));
    assert.equal(await store.count(), 3);
    assert.equal(await store.count({ owner: "o1", namespace: "n1" }), 2);
    assert.equal(await store.count({ owner: "o2" }), 0);
    assert.deepEqual(await store.namespaces("o1"), [
      { namespace: "n1", count: 2 },
      { namespace: "n2", count: 1 },
    ]);
    assert.deepEqual(await store.namespaces("o2"), []);
    assert.deepEqual([...await store.has(["a", "b", "x"])].sort(), ["a", "b"]);
    const [hit] = await store.search("o1", "n1", unit(2), 1);
    assert.equal(hit.id, "a");
    const named = await store.search("o1", "n1", unit(2), 5, { ids: ["c", "b", "x"] });
    assert.deepEqual(named.map((h) => h.id), ["c"], "only the named ids of this namespace");
    assert.deepEqual(await store.search("o1", "n1", unit(2), 5, { ids: [] }), []);
    await store.delete(["a", "x"]);
    assert.deepEqual([...await store.has(["a", "b"])], ["b"]);
    assert.equal(await store.count(), 2);
    await store.upsert([{ ...row("t", "o2", "n3", unit(0)), terms: ["h1", "h2", "h1"] }]);
    assert.deepEqual(plainTerms(await store.terms("o2", "n3")), [
      { id: "t", terms: ["h1", "h2", "h1"], blobId: "blob-t", createdAt: 1 },
    ]);
  });

  Deno.test(`${name}: a row's info round-trips through upsert and terms, replaced with it`, async () => {
    await using it = await held();
    const info: MemoryInfo = {
      tags: ["tag-hash-1", "tag-hash-2"],
      sealed: "c2VhbGVk.attributes",
      thread: "thread-hash-a",
      digest: "digest-of-a",
      expiresAt: 1_800_000_000_123,
      supersedes: "older-a",
      firstCreatedAt: 1_700_000_000_456,
    };
    const given = { ...row("a", "o1", "n1", unit(0), 5), terms: ["h1"], info };
    const kept = structuredClone(info);
    await it.store.upsert([
      given,
      row("b", "o1", "n1", unit(1), 6),
      { ...row("c", "o1", "n2", unit(2)), info: { digest: "digest-of-c" } },
    ]);
    info.tags!.push("changed after upsert");
    info.digest = "changed";
    const want: TermsRow[] = [
      { id: "a", terms: ["h1"], blobId: "blob-a", createdAt: 5, info: kept },
      { id: "b", terms: [], blobId: "blob-b", createdAt: 6 },
    ];
    for await (const store of it.stages()) {
      const rows = plainTerms(await store.terms("o1", "n1"));
      assert.deepEqual(rows, want, "every field as given, a row without info without one");
      rows[0].info!.tags!.push("changed by a caller");
      rows[0].terms.push("changed by a caller");
      assert.deepEqual(plainTerms(await store.terms("o1", "n1")), want, "callers get copies");
      assert.deepEqual(plainTerms(await store.terms("o1", "n2")), [
        { id: "c", terms: [], blobId: "blob-c", createdAt: 1, info: { digest: "digest-of-c" } },
      ]);
    }
    // An upsert replaces the info with the row's: none clears it, another replaces it.
    await it.store.upsert([
      row("a", "o1", "n1", unit(0), 7),
      { ...row("b", "o1", "n1", unit(1), 8), info: { expiresAt: 9 } },
    ]);
    for await (const store of it.stages()) {
      assert.deepEqual(plainTerms(await store.terms("o1", "n1")), [
        { id: "a", terms: [], blobId: "blob-a", createdAt: 7 },
        { id: "b", terms: [], blobId: "blob-b", createdAt: 8, info: { expiresAt: 9 } },
      ]);
    }
  });

  Deno.test(`${name}: once deleted, a row is seen by no call (erase)`, async () => {
    await using it = await held();
    await it.store.upsert([
      { ...row("a", "o1", "n1", unit(0)), terms: ["h1"], info: { digest: "da", tags: ["t"] } },
      row("b", "o1", "n1", unit(1)),
      { ...row("c", "o1", "n2", unit(0)), info: { digest: "dc" } },
      row("d", "o2", "n1", unit(0)),
    ]);
    assert.equal((await it.store.search("o1", "n1", unit(0), 1))[0].id, "a", "loaded");
    await it.store.delete(["a", "c", "x"]);
    for await (const store of it.stages()) {
      assert.deepEqual((await store.search("o1", "n1", unit(0), 10)).map((h) => h.id), ["b"]);
      assert.deepEqual(await store.search("o1", "n1", unit(0), 10, { ids: ["a", "c"] }), []);
      assert.deepEqual(await store.search("o1", "n2", unit(0), 10), []);
      assert.deepEqual([...await store.has(["a", "b", "c", "d"])].sort(), ["b", "d"]);
      assert.deepEqual((await store.terms("o1", "n1")).map((r) => r.id), ["b"]);
      assert.deepEqual(await store.terms("o1", "n2"), []);
      assert.equal(await store.count(), 2);
      assert.equal(await store.count({ owner: "o1" }), 1);
      assert.equal(await store.count({ owner: "o1", namespace: "n1" }), 1);
      assert.equal(await store.count({ owner: "o1", namespace: "n2" }), 0);
      assert.equal(await store.count({ namespace: "n2" }), 0);
      assert.deepEqual(await store.namespaces("o1"), [{ namespace: "n1", count: 1 }]);
      assert.deepEqual(await store.namespaces("o2"), [{ namespace: "n1", count: 1 }]);
    }
    // An erased id written again is a new row: nothing of the old one comes back.
    await it.store.delete(["a"]);
    await it.store.upsert([row("a", "o1", "n1", unit(2), 4)]);
    for await (const store of it.stages()) {
      assert.deepEqual(plainTerms(await store.terms("o1", "n1")), [
        { id: "a", terms: [], blobId: "blob-a", createdAt: 4 },
        { id: "b", terms: [], blobId: "blob-b", createdAt: 1 },
      ]);
      assert.deepEqual(await store.namespaces("o1"), [{ namespace: "n1", count: 2 }]);
    }
  });

  Deno.test(`${name}: an aborted signal is refused`, async () => {
    await using store = await open(4);
    await store.upsert([row("a", "o1", "n1", unit(0))]);
    await refusesAborted((o) => store.upsert([row("b", "o1", "n1", unit(1))], o), "upsert");
    await refusesAborted((o) => store.delete(["a"], o), "delete");
    await refusesAborted((o) => store.search("o1", "n1", unit(0), 5, o), "search");
    await refusesAborted((o) => store.has(["a"], o), "has");
    await refusesAborted((o) => store.count({}, o), "count");
    await refusesAborted((o) => store.terms("o1", "n1", o), "terms");
    await refusesAborted((o) => store.namespaces("o1", o), "namespaces");
    assert.deepEqual([...await store.has(["a", "b"])], ["a"], "nothing was written or deleted");
  });
}
