import assert from "node:assert/strict";
import { stateStoreSuite } from "@svc/relayer/testing";
import { Database } from "./database.ts";
import { PgStateStore } from "./state_store.ts";
import { testDatabase } from "./testing/test_server.ts";

stateStoreSuite("PgStateStore", async () => {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 4 });
  return Object.assign(new PgStateStore(database), {
    async [Symbol.asyncDispose]() {
      await database.close();
      await db[Symbol.asyncDispose]();
    },
  });
});

Deno.test("PgStateStore: an expired row is gone from reads before a sweep deletes it", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  try {
    let now = 1_000;
    const state = new PgStateStore(database, () => now);
    await state.set(["a"], 1, { expireIn: 100 });
    await state.set(["b"], 2);
    now += 100;
    assert.equal(await state.get(["a"]), null);
    assert.deepEqual(
      await Array.fromAsync(state.list({ start: ["a"], end: ["z"] }), (e) => e.key),
      [
        ["b"],
      ],
    );
    const [{ count }] = await database.sql`select count(*)::int as count from svc_state`;
    assert.equal(count, 2, "the expired row waits for a sweep");
  } finally {
    await database.close();
  }
});
