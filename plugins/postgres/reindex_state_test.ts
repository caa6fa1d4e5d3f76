import assert from "node:assert/strict";
import { Database } from "./database.ts";
import { PgReindexState } from "./reindex_state.ts";
import { testDatabase } from "./test_server.ts";

Deno.test("PgReindexState: a plan and its cursors persist, under keyed names, until cleared", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  try {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const state = await PgReindexState.open(database, secret);
    assert.equal(await state.plan(), null);
    const plan = { from: "index", to: "index-2", model: "m", dimensions: 4, startedAt: 5 };
    await state.begin(plan);
    const cursor = { after: "m9", copied: 3, skipped: 1, done: false };
    await state.setCursor("owner-marker", "ns-marker", cursor);
    await state.setCursor("owner-marker", "ns-marker", { ...cursor, done: true });
    // Another relayer sees the same progress.
    const again = await PgReindexState.open(database, secret);
    assert.deepEqual(await again.plan(), plan);
    assert.deepEqual(await again.cursor("owner-marker", "ns-marker"), { ...cursor, done: true });
    assert.equal(await again.cursor("owner-marker", "other"), null);
    const keys = await database.sql`select key, value::text as value from svc_index_reindex`;
    assert.equal(keys.length, 2);
    for (const { key, value } of keys) assert.doesNotMatch(`${key} ${value}`, /marker/);
    await state.begin({ ...plan, to: "index-3" }); // a new reindex starts with no cursor
    assert.equal(await state.cursor("owner-marker", "ns-marker"), null);
    await state.clear();
    assert.equal(await again.plan(), null);
  } finally {
    await database.close();
  }
});
