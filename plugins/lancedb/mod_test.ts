import assert from "node:assert/strict";
import * as lancedb from "@lancedb/lancedb";
import { Field, FixedSizeList, Float32, Float64, Schema, Utf8 } from "apache-arrow";
import { MemoryVectorStore } from "@svc/relayer/testing";
import type { VectorRow } from "@svc/relayer/kit";
import { LanceDbVectorStore } from "./mod.ts";

const DIMENSIONS = 32;

function randomVector(): number[] {
  return Array.from({ length: DIMENSIONS }, () => Math.random() * 2 - 1);
}

/**
 * The indices of the table in `dir`, read through a connection of its own. The table is closed
 * before its connection: one left to the garbage collector after its connection closed can crash
 * the runtime when it is finalized.
 */
async function indicesOf(dir: string) {
  const db = await lancedb.connect(dir);
  const table = await db.openTable("memories");
  try {
    return await table.listIndices();
  } finally {
    table.close();
    db.close();
  }
}

Deno.test("LanceDbVectorStore builds the HNSW index past indexMinRows and stays exact", async () => {
  const dir = await Deno.makeTempDir();
  const options = { model: "test", dimensions: DIMENSIONS, indexMinRows: 200 };
  const store = await LanceDbVectorStore.open({ dir, ...options });
  const exact = new MemoryVectorStore(DIMENSIONS);
  try {
    // 101 commits trigger the periodic optimisation, which builds the index over 303 rows.
    for (let commit = 0; commit < 101; commit++) {
      const rows: VectorRow[] = Array.from({ length: 3 }, (_, i) => ({
        id: `m${commit}-${i}`,
        owner: commit === 0 ? "0xsmall" : `0xowner${i % 2}`,
        namespace: "default",
        blobId: `b${commit}-${i}`,
        vector: randomVector(),
        createdAt: commit,
      }));
      await store.upsert(rows);
      await exact.upsert(rows);
    }
    const indices = await indicesOf(dir);
    assert.ok(indices.some((index) => index.columns.includes("vector")), "no vector index");

    for (const owner of ["0xowner0", "0xowner1", "0xsmall"]) {
      for (let q = 0; q < 5; q++) {
        const query = randomVector();
        const got = await store.search(owner, "default", query, 10);
        const want = await exact.search(owner, "default", query, 10);
        assert.deepEqual(got.map((hit) => hit.id), want.map((hit) => hit.id));
        got.forEach((hit, i) => assert.ok(Math.abs(hit.distance - want[i].distance) < 1e-5));
      }
    }
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LanceDbVectorStore answers the same before and after its index is built: exact, ties by id", async () => {
  const dir = await Deno.makeTempDir();
  const open = (exactMaxRows?: number) =>
    LanceDbVectorStore.open({
      dir,
      model: "test",
      dimensions: DIMENSIONS,
      indexMinRows: 200,
      exactMaxRows,
    });
  let store = await open();
  try {
    const twin = randomVector();
    const rowOf = (id: string, vector: number[]): VectorRow => ({
      id,
      owner: "0xo",
      namespace: "default",
      blobId: `b-${id}`,
      vector,
      createdAt: 0,
    });
    // Equal vectors written in an order other than their ids', among others.
    for (const id of ["t5", "t2", "t9", "t1", "t7"]) await store.upsert([rowOf(id, twin)]);
    const queries = [twin, ...Array.from({ length: 4 }, randomVector)];
    const ask = () => Promise.all(queries.map((q) => store.search("0xo", "default", q, 3)));
    const before = await ask();
    for (let commit = 0; commit < 101; commit++) {
      await store.upsert([0, 1, 2].map((i) => rowOf(`m${commit}-${i}`, randomVector())));
    }
    await store.idle();
    const indices = await indicesOf(dir);
    assert.ok(indices.some((index) => index.columns.includes("vector")), "the index is built");
    const [ties] = await ask();
    assert.deepEqual(ties.map((hit) => hit.id), ["t1", "t2", "t5"], "equal distances by id");
    await store.close();
    store = await open();
    const after = await ask();
    assert.deepEqual(after[0], before[0], "the same, index built or not");
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LanceDbVectorStore opens a table made before infos (or terms): the columns are added, the rows kept", async () => {
  for (const older of [["terms"], []]) {
    const dir = await Deno.makeTempDir();
    try {
      // The table as an earlier version made it, with two rows.
      const db = await lancedb.connect(dir);
      const fields = [
        new Field("id", new Utf8(), false),
        new Field("owner_id", new Utf8(), false),
        new Field("ns", new Utf8(), false),
        new Field("blob_id", new Utf8(), false),
        new Field("created_at", new Float64(), false),
        ...older.map((name) => new Field(name, new Utf8(), true)),
        new Field(
          "vector",
          new FixedSizeList(4, new Field("item", new Float32(), true)),
          false,
        ),
      ];
      const table = await db.createEmptyTable("memories", new Schema(fields));
      await table.add(["a", "b"].map((id, i) => ({
        id,
        owner_id: "o",
        ns: "n",
        blob_id: `blob-${id}`,
        created_at: i + 1,
        ...(older.includes("terms") ? { terms: i === 0 ? "h1 h2" : null } : {}),
        vector: [1, i, 0, 0],
      })));
      table.close();
      db.close();
      await Deno.writeTextFile(
        `${dir}/svc_index.json`,
        JSON.stringify({ model: "test", dimensions: 4 }),
      );

      let store = await LanceDbVectorStore.open({ dir, model: "test", dimensions: 4 });
      const byId = (a: { id: string }, b: { id: string }) => a.id < b.id ? -1 : 1;
      assert.deepEqual((await store.terms("o", "n")).sort(byId), [
        {
          id: "a",
          terms: older.includes("terms") ? ["h1", "h2"] : [],
          blobId: "blob-a",
          createdAt: 1,
        },
        { id: "b", terms: [], blobId: "blob-b", createdAt: 2 },
      ]);
      const info = { tags: ["k"], digest: "d", expiresAt: 5 };
      await store.upsert([{
        id: "b",
        owner: "o",
        namespace: "n",
        blobId: "blob-b2",
        vector: [0, 1, 0, 0],
        createdAt: 3,
        info,
      }]);
      await store.close();
      store = await LanceDbVectorStore.open({ dir, model: "test", dimensions: 4 });
      assert.deepEqual((await store.terms("o", "n")).sort(byId).map((r) => [r.id, r.info]), [
        ["a", undefined],
        ["b", info],
      ]);
      assert.deepEqual((await store.search("o", "n", [1, 0, 0, 0], 5)).map((h) => h.id), [
        "a",
        "b",
      ]);
      const moved = (await Array.fromAsync(store.rows())).flat().sort(byId);
      assert.deepEqual(moved.map((r) => [r.id, r.info]), [["a", undefined], ["b", info]]);
      await store.close();
      const reopened = await lancedb.connect(dir);
      const migrated = await reopened.openTable("memories");
      const names = (await migrated.schema()).fields.map((field) => field.name);
      migrated.close();
      reopened.close();
      assert.ok(names.includes("info") && names.includes("terms"), names.join());
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("LanceDbVectorStore: compaction deletes the versions it replaced, erased rows with them; deletes and writes take turns", async () => {
  const dir = await Deno.makeTempDir();
  const store = await LanceDbVectorStore.open({
    dir,
    model: "test",
    dimensions: DIMENSIONS,
    keepVersionsMs: 0,
  });
  const row = (n: number): VectorRow => ({
    id: `memory-${String(n).padStart(4, "0")}`,
    owner: "0xowner",
    namespace: "default",
    blobId: `b${n}`,
    vector: randomVector(),
    createdAt: n,
  });
  /** The files under `dir` that hold `text`. */
  const holding = async (text: string) => {
    const found: string[] = [];
    const walk = async (path: string) => {
      for await (const entry of Deno.readDir(path)) {
        const at = `${path}/${entry.name}`;
        if (entry.isDirectory) await walk(at);
        else if (new TextDecoder("latin1").decode(await Deno.readFile(at)).includes(text)) {
          found.push(at);
        }
      }
    };
    await walk(dir);
    return found;
  };
  try {
    // Writes and erases sent together, as recall-while-erase traffic sends them.
    const writes: Promise<void>[] = [];
    for (let n = 0; n < 240; n++) {
      writes.push(store.upsert([row(n)]));
      if (n % 2 === 1) writes.push(store.delete([row(n - 1).id]));
    }
    await Promise.all(writes);
    assert.equal(await store.count(), 120);
    assert.deepEqual(await store.has([row(0).id, row(1).id]), new Set([row(1).id]));
    const db = await lancedb.connect(dir);
    const table = await db.openTable("memories");
    const versions = await table.listVersions();
    table.close();
    db.close();
    assert.ok(versions.length < 150, `${versions.length} versions kept of about 360 commits`);
    // A compaction after the erases rewrote their fragments; the old files went with the versions.
    for (let n = 240; n < 240 + 101; n++) await store.upsert([row(n)]);
    assert.deepEqual(await holding(row(0).id), []);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LanceDbVectorStore: deletes queued behind a commit are committed together", async () => {
  const dir = await Deno.makeTempDir();
  const store = await LanceDbVectorStore.open({ dir, model: "test", dimensions: DIMENSIONS });
  const versions = async () => {
    const db = await lancedb.connect(dir);
    const table = await db.openTable("memories");
    try {
      return (await table.listVersions()).length;
    } finally {
      table.close();
      db.close();
    }
  };
  try {
    const ids = Array.from({ length: 40 }, (_, n) => `memory-${n}`);
    await store.upsert(ids.map((id, n) => ({
      id,
      owner: "0xowner",
      namespace: "default",
      blobId: `b${n}`,
      vector: randomVector(),
      createdAt: n,
    })));
    const before = await versions();
    await Promise.all(ids.slice(0, 30).map((id) => store.delete([id])));
    // The first alone (the writer was idle), then the 29 queued behind it together.
    assert.equal(await versions(), before + 2);
    assert.equal(await store.count(), 10);
    assert.deepEqual([...await store.has(ids)].sort(), ids.slice(30).sort());
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
