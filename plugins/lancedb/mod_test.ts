import assert from "node:assert/strict";
import * as lancedb from "@lancedb/lancedb";
import { MemoryVectorStore } from "../../src/testing/mod.ts";
import type { VectorRow } from "../../src/kit.ts";
import { LanceDbVectorStore } from "./mod.ts";

const DIMENSIONS = 32;

function randomVector(): number[] {
  return Array.from({ length: DIMENSIONS }, () => Math.random() * 2 - 1);
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
    const db = await lancedb.connect(dir);
    const indices = await (await db.openTable("memories")).listIndices();
    db.close();
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
