/** The encrypted index set on PostgreSQL: the set's conformance suite, and the shared switch. */
import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { vectorIndexSetSuite } from "@svc/relayer/testing";
import { Database } from "./database.ts";
import { PgIndexSet } from "./index_set.ts";
import { testDatabase } from "./testing/test_server.ts";

vectorIndexSetSuite("PgIndexSet", async () => {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 3 });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const opened: PgIndexSet[] = [];
  const open = async () => {
    const set = await PgIndexSet.open({ database, secret });
    opened.push(set);
    return set;
  };
  return Object.assign(await open(), {
    reopen: open,
    async [Symbol.asyncDispose]() {
      for (const set of opened) await set.close();
      await database.close();
      await db[Symbol.asyncDispose]();
    },
  });
});

Deno.test("PgIndexSet: a switch on one relayer is heard by the others, and persists", async () => {
  await using db = await testDatabase();
  const databases = await Promise.all([1, 2].map(() => Database.open({ url: db.url, pool: 2 })));
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const [a, b] = await Promise.all(
    databases.map((database) => PgIndexSet.open({ database, secret })),
  );
  try {
    const heard = Promise.withResolvers<string>();
    b.onActivated((name) => heard.resolve(name));
    await (await a.open("index-2", { model: "m2", dimensions: 4 })).close();
    await a.activate("index-2");
    assert.equal(await heard.promise, "index-2");
    assert.equal(await b.active(), "index-2");
    await assert.rejects(
      b.remove("index-2"),
      (e) => e instanceof SvcError && e.code === "conflict",
    );
  } finally {
    await a.close();
    await b.close();
    for (const database of databases) await database.close();
  }
});

Deno.test("PgIndexSet: an index built with another embedder is refused, naming both", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const set = await PgIndexSet.open({ database, secret });
  try {
    await (await set.open("index", { model: "first", dimensions: 4 })).close();
    await assert.rejects(set.open("index", { model: "second", dimensions: 8 }), (e) => {
      assert.ok(e instanceof SvcError && e.code === "conflict");
      assert.match(e.message, /index "index" of the database/);
      assert.match(e.message, /"first" \(4 dimensions\) but "second" \(8\)/);
      return true;
    });
    // Another secret is refused too.
    const other = await PgIndexSet.open({
      database,
      secret: crypto.getRandomValues(new Uint8Array(32)),
    });
    await assert.rejects(
      other.open("index", { model: "first", dimensions: 4 }),
      (e) =>
        e instanceof SvcError && /another master key/.test(e.message) &&
        /every relayer on the database must start with the same SVC_MASTER_KEY/.test(e.message) &&
        !/master\.key|move .* away/.test(e.message),
    );
    await other.close();
  } finally {
    await set.close();
    await database.close();
  }
});
