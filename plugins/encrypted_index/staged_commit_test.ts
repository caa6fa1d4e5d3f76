import assert from "node:assert/strict";
import type { VectorRow } from "@svc/relayer/kit";
import { KvBlockStorage } from "./kv_storage.ts";
import { EncryptedVectorStore } from "./mod.ts";

const DIMENSIONS = 1536;
const secret = crypto.getRandomValues(new Uint8Array(32));

/** A store on the Deno KV storage at `path`, whose commits are staged past Deno KV's limits. */
async function open(path: string) {
  const storage = await KvBlockStorage.open(path);
  return await EncryptedVectorStore.open({
    storage,
    secret,
    model: "test-model",
    dimensions: DIMENSIONS,
  });
}

function row(id: string, n: number, terms?: string[]): VectorRow {
  const vector = Array.from({ length: DIMENSIONS }, (_, j) => Math.sin(n * 31 + j));
  return { id, owner: "o", namespace: "n", blobId: `blob-${id}`, vector, createdAt: n, terms };
}

/** 128 rows of about 12 KB: 1.5 MB of blocks, of which about half are staged. */
function bigWrite(): VectorRow[] {
  return Array.from({ length: 128 }, (_, i) => {
    const terms = Array.from({ length: 500 }, (_, t) => `${i}x${t}`.padStart(10, "0"));
    return row(`new${i}`, 100 + i, terms);
  });
}

/** What the index answers about namespace "n". */
async function state(store: EncryptedVectorStore, ids: string[]) {
  const hits = await store.search("o", "n", row("", 0).vector, 1000);
  return {
    hits: hits.map((h) => h.id).sort(),
    count: await store.count(),
    countNs: await store.count({ owner: "o", namespace: "n" }),
    has: [...await store.has(ids)].sort(),
    terms: (await store.terms("o", "n")).map((t) => t.id).sort(),
  };
}

/** The block keys of the index file: markers of unfinished blocks, and block ids with parts. */
async function stored(path: string) {
  const kv = await Deno.openKv(path);
  try {
    const markers: string[] = [];
    const parts = new Map<string, { parts: number; present: number }>();
    for await (const entry of kv.list({ prefix: ["b"] })) {
      const [, , id, count, p] = entry.key as [string, string, string, number, number?];
      if (p === undefined) markers.push(id);
      else {
        const block = parts.get(id) ?? { parts: count, present: 0 };
        block.present++;
        parts.set(id, block);
      }
    }
    return { markers, parts };
  } finally {
    kv.close();
  }
}

/**
 * Makes the final commit of the next write that stages blocks throw (a final commit is the one
 * with checks after commits without); counts the staged commits before it.
 */
function failFinalCommit(): { staged: number } & Disposable {
  const proto = Deno.AtomicOperation.prototype;
  const { check, commit } = proto;
  const checked = new WeakSet<Deno.AtomicOperation>();
  const seen = { staged: 0, failed: false };
  proto.check = function (this: Deno.AtomicOperation, ...checks: Deno.AtomicCheck[]) {
    checked.add(this);
    return check.apply(this, checks);
  };
  proto.commit = function (this: Deno.AtomicOperation) {
    if (!checked.has(this)) seen.staged++;
    else if (seen.staged > 0 && !seen.failed) {
      seen.failed = true;
      return Promise.reject(new Error("injected: the database went away"));
    }
    return commit.apply(this);
  };
  return {
    get staged() {
      return seen.staged;
    },
    [Symbol.dispose]() {
      proto.check = check;
      proto.commit = commit;
    },
  };
}

Deno.test("encrypted index: a write whose final commit throws leaves the index as before, and its staged blocks are swept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-encidx-staged-" });
  const path = `${dir}/index.kv`;
  try {
    let store = await open(path);
    await store.upsert([row("keep", 1)]);
    const batch = bigWrite();
    const ids = ["keep", ...batch.map((r) => r.id)];
    const before = await state(store, ids);
    assert.deepEqual(before.hits, ["keep"]);

    {
      using injected = failFinalCommit();
      await assert.rejects(store.upsert(batch), /write the vector index/);
      assert.ok(injected.staged >= 1, `${injected.staged} staged commits`);
    }
    // The same store still answers as before.
    assert.deepEqual(await state(store, ids), before);
    await store.close();

    // Several whole blocks were written by the staged commits, each still marked unfinished.
    const left = await stored(path);
    const whole = left.markers.filter((id) => {
      const block = left.parts.get(id);
      return block !== undefined && block.present === block.parts;
    });
    assert.ok(whole.length >= 3, `${whole.length} whole unfinished blocks`);

    store = await open(path);
    assert.deepEqual(await state(store, ids), before, "after reopening");
    await store.upsert([row("later", 2)]);
    const after = await state(store, [...ids, "later"]);
    assert.deepEqual(after.hits, ["keep", "later"]);
    assert.equal(after.count, 2);
    assert.deepEqual(after.has, ["keep", "later"]);
    await store.close();

    const swept = await stored(path);
    assert.deepEqual(swept.markers, []);
    for (const id of left.markers) assert.equal(swept.parts.has(id), false, `block ${id} swept`);
    store = await open(path);
    assert.deepEqual((await state(store, ids)).hits, ["keep", "later"]);
    // The write that failed can be made again.
    await store.upsert(batch);
    assert.equal(await store.count(), 130);
    await store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("encrypted index: unfinished blocks planned against an older version are swept on load", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-encidx-staged-" });
  const path = `${dir}/index.kv`;
  try {
    const a = await open(path);
    const b = await open(path);
    await a.upsert([row("keep", 1)]);
    // b loads the namespace now, so its next write is planned without reading it again.
    assert.equal((await b.search("o", "n", row("", 0).vector, 10)).length, 1);
    const batch = bigWrite();
    {
      using _injected = failFinalCommit();
      await assert.rejects(a.upsert(batch), /write the vector index/);
    }
    assert.ok((await stored(path)).markers.length > 0);
    // Another store moves the namespace on; a third, loading it, sweeps what a left.
    await b.upsert([row("other", 3)]);
    const c = await open(path);
    assert.deepEqual(
      (await c.search("o", "n", row("", 0).vector, 100)).map((h) => h.id).sort(),
      ["keep", "other"],
    );
    assert.deepEqual((await stored(path)).markers, []);
    // a's next write is planned again over b's and lands.
    await a.upsert([row("last", 4)]);
    for (const store of [a, b, c]) assert.equal(await store.count(), 3);
    await Promise.all([a.close(), b.close(), c.close()]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
