/**
 * The encrypted index on PostgreSQL: the vector store's conformance suite, and what is specific
 * to sharing (two pools on one database acting as two relayers).
 */
import assert from "node:assert/strict";
import type { VectorRow } from "@svc/relayer/kit";
import { vectorStoreSuite, type VectorStoreUnderTest } from "@svc/relayer/testing";
import { EncryptedVectorStore } from "@svc/encrypted-index";
import { PgBlockStorage } from "./block_storage.ts";
import { Database } from "./database.ts";
import { testDatabase } from "./testing/test_server.ts";

/** A store on `database`'s index `name`, which it can reopen; `dispose` runs after it closes. */
async function onDatabase(
  database: Database,
  secret: Uint8Array<ArrayBuffer>,
  dimensions: number,
  dispose: () => Promise<void>,
): Promise<VectorStoreUnderTest> {
  const store = await EncryptedVectorStore.open({
    storage: await PgBlockStorage.open(database, "index"),
    secret,
    model: "test",
    dimensions,
  });
  return Object.assign(store, {
    reopen: async () => {
      await store.close();
      return await onDatabase(database, secret, dimensions, dispose);
    },
    [Symbol.asyncDispose]: async () => {
      await store.close();
      await dispose();
    },
  });
}

vectorStoreSuite("EncryptedVectorStore on PostgreSQL", async (dimensions) => {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 3 });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  return await onDatabase(database, secret, dimensions, async () => {
    await database.close();
    await db[Symbol.asyncDispose]();
  });
});

/** Every text, JSON and bytea value of every table of the database, as bytes. */
async function everyStoredByte(database: Database): Promise<Uint8Array[]> {
  const columns = await database.sql<{ table_name: string; column_name: string; t: string }[]>`
    select table_name, column_name, data_type as t from information_schema.columns
    where table_schema = 'public' and data_type in ('bytea', 'text', 'jsonb', 'character varying')`;
  const out: Uint8Array[] = [];
  for (const { table_name, column_name, t } of columns) {
    const value = t === "bytea" ? `"${column_name}"` : `convert_to("${column_name}"::text, 'UTF8')`;
    const rows = await database.sql.unsafe<{ v: Uint8Array }[]>(
      `select ${value} as v from "${table_name}" where "${column_name}" is not null`,
    );
    for (const row of rows) out.push(new Uint8Array(row.v));
  }
  return out;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

Deno.test("encrypted index on PostgreSQL: no name, term, tag, blob id or vector is readable in the database", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  try {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const storage = await PgBlockStorage.open(database, "index");
    const store = await EncryptedVectorStore.open({ storage, secret, model: "m", dimensions: 16 });
    const vector = Array.from({ length: 16 }, (_, i) => (i + 1) / 16);
    const norm = Math.hypot(...vector);
    const rows: VectorRow[] = [1, 2, 3].map((n) => ({
      id: `memory-${n}`,
      owner: "owner-marker-0x1234",
      namespace: `namespace-marker-${n % 2}`,
      blobId: `blob-marker-abcdef-${n}`,
      vector,
      createdAt: 1_700_000_000_000,
      terms: ["termmarker1", "termmarker2"],
      info: { digest: "digestmarker", tags: ["tagmarker"] },
    }));
    await store.upsert(rows);
    await store.delete(["memory-3"]);
    await store.close();
    const floats = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);
    const needles = ["owner-marker", "namespace-marker", "blob-marker", "termmarker", "tagmarker"]
      .map((s) => new TextEncoder().encode(s));
    needles.push(floats(vector.slice(0, 4)), floats(vector.slice(0, 4).map((x) => x / norm)));
    const values = await everyStoredByte(database);
    const all = new Uint8Array(values.reduce((n, v) => n + v.length + 1, 0));
    let at = 0;
    for (const value of values) {
      all.set(value, at);
      at += value.length + 1;
    }
    for (const needle of needles) {
      assert.equal(indexOf(all, needle), -1, new TextDecoder().decode(needle));
    }
    // The check sees what is stored: the memory ids are (as in the Deno KV index).
    assert.ok(indexOf(all, new TextEncoder().encode("memory-1")) >= 0);
    const [{ blocks }] = await database.sql`select count(*)::int as blocks from svc_index_blocks`;
    assert.ok(blocks >= 2, "the sealed blocks were read");
  } finally {
    await database.close();
  }
});

Deno.test("PgBlockStorage: a database that is gone is a 503 that names neither the URL nor the data", async () => {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 3 });
  const storage = await PgBlockStorage.open(database, "index");
  const ref = { owner: "owner-hash", ns: "ns-hash" };
  await database.close();
  await db[Symbol.asyncDispose]();
  const change = {
    expect: [{ ref, version: null }],
    headers: [{ ref, header: { name: new Uint8Array(4), count: 1 } }],
    putBlocks: [],
    deleteBlocks: [],
    putIds: [{ id: "m1", ref }],
    deleteIds: [],
  };
  const calls = [
    () => storage.meta(),
    () => storage.setMeta({ format: 1, model: "test", dimensions: 3, keyCheck: "check" }),
    () => storage.note("n"),
    () => storage.setNote("n", "v"),
    () => storage.header(ref),
    () => storage.headers(),
    () => Array.fromAsync(storage.blocks(ref, "0")),
    () => storage.locate(["m1"]),
    () => storage.commit(change),
  ];
  for (const call of calls) {
    await assert.rejects(call, (error: Error & { code?: string }) => {
      assert.equal(error.code, "backend_unavailable", String(error));
      assert.doesNotMatch(error.message, /postgres:\/\/|owner-hash|ns-hash/);
      return true;
    });
  }
  storage.close();
});
