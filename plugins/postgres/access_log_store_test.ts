import assert from "node:assert/strict";
import { accessLogStoreSuite } from "@svc/relayer/testing";
import { PgAccessLogStore } from "./access_log_store.ts";
import { Database } from "./database.ts";
import { testDatabase } from "./test_server.ts";

accessLogStoreSuite("PgAccessLogStore", async () => {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  return Object.assign(new PgAccessLogStore(database), {
    async [Symbol.asyncDispose]() {
      await database.close();
      await db[Symbol.asyncDispose]();
    },
  });
});

const sealed = (n: number) => new Uint8Array([n, n, n]);

Deno.test("PgAccessLogStore: two relayers append to one log, and either reads and prunes it all", async () => {
  await using db = await testDatabase();
  const one = await Database.open({ url: db.url, pool: 2 });
  const two = await Database.open({ url: db.url, pool: 2 });
  try {
    const [a, b] = [new PgAccessLogStore(one), new PgAccessLogStore(two)];
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

Deno.test("PgAccessLogStore: the table holds the tag, the id and the sealed bytes, nothing else", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  try {
    await new PgAccessLogStore(database).append([{ log: "tag", id: "id-1", sealed: sealed(9) }]);
    const columns = await database.sql`
      select column_name from information_schema.columns
      where table_name = 'svc_access_log_records' order by ordinal_position`;
    assert.deepEqual(columns.map((c) => c.column_name), ["log", "id", "sealed"]);
  } finally {
    await database.close();
  }
});

Deno.test("PgAccessLogStore: a database failure is a 503 that names no detail", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  const store = new PgAccessLogStore(database);
  await database.close();
  await assert.rejects(store.scan("tag", {}, 10), (error: Error & { status?: number }) => {
    assert.equal(error.status, 503);
    assert.doesNotMatch(error.message, /postgres:\/\//);
    return true;
  });
});
