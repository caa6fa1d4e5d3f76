import assert from "node:assert/strict";
import { accessLogStoreSuite } from "@svc/relayer/testing";
import { StateAccessLogStore } from "@svc/relayer/testing";
import { PgStateStore } from "./state_store.ts";
import { Database } from "./database.ts";
import { testDatabase } from "./testing/test_server.ts";

accessLogStoreSuite("StateAccessLogStore over PgStateStore", async () => {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  return Object.assign(new StateAccessLogStore(new PgStateStore(database)), {
    async [Symbol.asyncDispose]() {
      await database.close();
      await db[Symbol.asyncDispose]();
    },
  });
});

const sealed = (n: number) => new Uint8Array([n, n, n]);

Deno.test("StateAccessLogStore over PostgreSQL: two relayers append to one log, and either reads and prunes it all", async () => {
  await using db = await testDatabase();
  const one = await Database.open({ url: db.url, pool: 2 });
  const two = await Database.open({ url: db.url, pool: 2 });
  try {
    const [a, b] = [one, two].map((pool) => new StateAccessLogStore(new PgStateStore(pool)));
    await Promise.all([
      a.append([1, 3, 5].map((n) => ({ log: "owner", id: `id-${n}`, sealed: sealed(n) }))),
      b.append([2, 4, 6].map((n) => ({ log: "owner", id: `id-${n}`, sealed: sealed(n) }))),
    ]);
    const seen = await b.scan("owner", {}, 10);
    assert.deepEqual(seen.map((r) => r.id), [6, 5, 4, 3, 2, 1].map((n) => `id-${n}`));
    assert.deepEqual([...seen[1].sealed], [5, 5, 5], "written by the other relayer");
    // Both prune at once: each record is deleted once, and counted once.
    const counts = await Promise.all([a.prune("id-4"), b.prune("id-4")]);
    assert.equal(counts[0] + counts[1], 3);
    assert.deepEqual((await a.scan("owner", {}, 10)).map((r) => r.id), ["id-6", "id-5", "id-4"]);
  } finally {
    await one.close();
    await two.close();
  }
});

Deno.test("StateAccessLogStore over PostgreSQL: a database failure is a 503 that names no detail", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  const store = new StateAccessLogStore(new PgStateStore(database));
  await database.close();
  await assert.rejects(store.scan("tag", {}, 10), (error: Error & { status?: number }) => {
    assert.equal(error.status, 503);
    assert.doesNotMatch(error.message, /postgres:\/\//);
    return true;
  });
});
