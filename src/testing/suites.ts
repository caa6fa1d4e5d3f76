/**
 * Conformance suites: every implementation of an interface must pass its suite. Each takes a
 * factory for a fresh instance and registers `Deno.test`s under the given name; each checks
 * that a call with an already aborted signal is refused with the signal's reason. The job
 * queue's suite is in `job_queue_suite.ts`, the sponsor's in `sponsor_suite.ts`, the cipher's
 * in `cipher_suite.ts`.
 */
import assert from "node:assert/strict";
import type {
  AccountDirectory,
  BlobStore,
  Embedder,
  Llm,
  MemoryInfo,
  Reranker,
  ResolvedAccount,
  TermsRow,
  VectorStore,
} from "../backends/types.ts";
import { SvcError } from "../errors.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** Asserts that `call`, given an already aborted signal, rejects with the signal's reason. */
export async function refusesAborted(
  call: (options: { signal: AbortSignal }) => Promise<unknown>,
  what: string,
) {
  const signal = AbortSignal.abort();
  await assert.rejects(() => call({ signal }), (error) => error === signal.reason, what);
}

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

  Deno.test(`${name}: a sealed vector is kept as given; a clear vector is never stored`, async () => {
    const store = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await store[Symbol.asyncDispose]?.() };
    // Longer than one Walrus attribute value (15,000 bytes): a 1,536-float64 vector, sealed.
    const sealedVector = crypto.getRandomValues(new Uint8Array(12_316))
      .toBase64({ alphabet: "base64url", omitPadding: true });
    const meta = { owner: "o1", namespace: "n1", memoryId: "m1", createdAt: 1, sealedVector };
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

/** The account fields of a resolution (a key's label, scope and expiry left out). */
function accountOf(resolved: ResolvedAccount | null) {
  return resolved && {
    accountId: resolved.accountId,
    owner: resolved.owner,
    active: resolved.active,
  };
}

/**
 * Registers the account directory tests, for the fresh directories `open` makes, each with the
 * means to add and remove keys; `close`, when given, is called after its test.
 */
export function accountDirectorySuite(
  name: string,
  open: () => Promise<
    {
      directory: AccountDirectory;
      /** Registers a key on a new account; returns the account and its owner. */
      add(publicKey: string): Promise<{ accountId: string; owner: string }>;
      /** Removes a key from its account. */
      remove(accountId: string, publicKey: string): Promise<void>;
      close?(): void | Promise<void>;
    }
  >,
) {
  Deno.test(`${name}: resolves registered keys, honours the hint, forgets removed keys`, async () => {
    const { directory, add, remove, close } = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await close?.() };
    const k1 = "1".repeat(64), k2 = "2".repeat(64);
    const { accountId: id, owner } = await add(k1);
    // A key added without limits: full access (no scope, or an empty one), whatever its label.
    const account = (r: ResolvedAccount | null) =>
      r && { accountId: r.accountId, owner: r.owner, active: r.active, scope: r.scope ?? {} };
    const found = { accountId: id, owner, active: true, scope: {} };
    assert.deepEqual(account(await directory.resolve(k1)), found);
    assert.deepEqual(account(await directory.resolve(k1, id)), found);
    assert.equal(await directory.resolve(k1, "0x" + "9".repeat(64)), null);
    assert.equal(await directory.resolve(k2), null);
    await remove(id, k1);
    assert.equal(await directory.resolve(k1), null);
  });

  Deno.test(`${name}: an aborted resolve is refused`, async () => {
    const { directory, add, close } = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await close?.() };
    const key = "3".repeat(64);
    const { accountId } = await add(key);
    await refusesAborted((o) => directory.resolve(key, undefined, o), "resolve");
    await refusesAborted((o) => directory.resolve(key, accountId, o), "resolve with a hint");
  });

  Deno.test(`${name}: resolveOwner finds the account an owner owns, when offered`, async () => {
    const { directory, add, close } = await open();
    await using _ = { [Symbol.asyncDispose]: async () => await close?.() };
    if (!directory.resolveOwner) return; // a directory of delegate keys only
    const { accountId, owner } = await add("4".repeat(64));
    assert.deepEqual(accountOf(await directory.resolveOwner(owner)), {
      accountId,
      owner,
      active: true,
    });
    assert.equal(await directory.resolveOwner("0x" + "5".repeat(64)), null);
  });
}

/**
 * Registers the embedder tests, for the embedders `create` makes; one with
 * `Symbol.asyncDispose` is disposed after its test.
 */
export function embedderSuite(
  name: string,
  create: () =>
    | (Embedder & Partial<AsyncDisposable>)
    | Promise<Embedder & Partial<AsyncDisposable>>,
) {
  Deno.test(`${name}: deterministic, normalised vectors of the declared size`, async () => {
    const embedder = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await embedder[Symbol.asyncDispose]?.() };
    assert.ok(embedder.model.length > 0);
    const [a, b, c] = await embedder.embed([
      "I adore my dog Rex",
      "I adore my dog Rex",
      "Quarterly tax filing deadline",
    ]);
    assert.equal(a.length, embedder.dimensions);
    assert.deepEqual(a, b);
    const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5);
    const [q] = await embedder.embed(["what is my dog called"], { purpose: "query" });
    assert.equal(q.length, embedder.dimensions);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
    assert.ok(Math.abs(dot(q, q) - 1) < 1e-5, "a query's vector is normalised too");
    assert.ok(dot(q, a) > dot(q, c), "a related text is closer than an unrelated one");
    assert.deepEqual(await embedder.embed([]), []);
  });

  Deno.test(`${name}: an aborted signal is refused`, async () => {
    const embedder = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await embedder[Symbol.asyncDispose]?.() };
    await refusesAborted((o) => embedder.embed(["I adore my dog Rex"], o), "embed");
  });
}

/**
 * Registers the re-ranker tests, for the re-rankers `create` makes; one with
 * `Symbol.asyncDispose` is disposed after its test.
 */
export function rerankerSuite(
  name: string,
  create: () =>
    | (Reranker & Partial<AsyncDisposable>)
    | Promise<Reranker & Partial<AsyncDisposable>>,
) {
  Deno.test(`${name}: one score in [0, 1] per text, in order; an aborted call rejects`, async () => {
    const reranker = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await reranker[Symbol.asyncDispose]?.() };
    assert.ok(reranker.name.length > 0);
    const texts = ["Quarterly tax filing deadline", "My dog Rex loves the beach", ""];
    const scores = await reranker.rerank("what is my dog called", texts);
    assert.equal(scores.length, texts.length);
    assert.ok(scores.every((s) => Number.isFinite(s) && s >= 0 && s <= 1), `${scores}`);
    assert.ok(scores[1] > scores[0], "a text about the query beats an unrelated one");
    const reversed = await reranker.rerank("what is my dog called", texts.toReversed());
    assert.deepEqual(reversed, scores.toReversed(), "each score belongs to its text");
    assert.deepEqual(await reranker.rerank("anything", []), []);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await assert.rejects(
      reranker.rerank("dog", texts, { signal: controller.signal }),
      /stop/,
    );
  });
}

/**
 * Registers the language model tests, for the models `create` makes; one with
 * `Symbol.asyncDispose` is disposed after its test.
 */
export function llmSuite(name: string, create: () => Promise<Llm & Partial<AsyncDisposable>>) {
  Deno.test(`${name}: extracts facts about the user and answers from memories`, async () => {
    const llm = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await llm[Symbol.asyncDispose]?.() };
    assert.ok(llm.model.length > 0);
    const facts = await llm.extractFacts(
      "Hi! I'm vegetarian. What time is it? I live in Oslo. He said it would rain.",
    );
    assert.ok(facts.length >= 1 && facts.length <= 20);
    assert.ok(facts.every((fact) => typeof fact === "string" && fact.length > 0));
    assert.ok(facts.some((fact) => /vegetarian/i.test(fact)));
    assert.ok(facts.every((fact) => !/\?$/.test(fact) && !/said/.test(fact)));
    assert.deepEqual(await llm.extractFacts("Hello! How are you?"), []);
    const answer = await llm.answer("Where do I live?", ["I live in Oslo", "I have a cat"]);
    assert.match(answer, /Oslo/);
  });

  Deno.test(`${name}: an aborted signal is refused`, async () => {
    const llm = await create();
    await using _ = { [Symbol.asyncDispose]: async () => await llm[Symbol.asyncDispose]?.() };
    await refusesAborted((o) => llm.extractFacts("I live in Oslo.", o), "extractFacts");
    await refusesAborted((o) => llm.answer("Where do I live?", ["I live in Oslo"], o), "answer");
  });
}
