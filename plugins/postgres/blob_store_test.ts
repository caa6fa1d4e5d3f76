import assert from "node:assert/strict";
import { blobStoreSuite } from "@svc/relayer/testing";
import { BlobPlaces, SvcError } from "@svc/relayer/kit";
import { PgBlobStore } from "./blob_store.ts";
import { Database } from "./database.ts";
import { readOnlyDatabase, testDatabase } from "./testing/test_server.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const SECRET = crypto.getRandomValues(new Uint8Array(32));
const meta = {
  owner: "0xowner",
  namespace: "health",
  memoryId: "m1",
  createdAt: 1_700_000_000_000,
};

/** `count` relayers' pools on one fresh database, and their blob stores; all closed on dispose. */
async function relayers(count: number, secret = SECRET) {
  const db = await testDatabase();
  const databases: Database[] = [];
  try {
    for (let i = 0; i < count; i++) databases.push(await Database.open({ url: db.url, pool: 3 }));
    const stores = await Promise.all(
      databases.map((database) => PgBlobStore.open({ database, secret })),
    );
    return {
      stores,
      databases,
      async [Symbol.asyncDispose]() {
        for (const database of databases) await database.close();
        await db[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    for (const database of databases) await database.close();
    await db[Symbol.asyncDispose]();
    throw error;
  }
}

blobStoreSuite("PgBlobStore", async () => {
  const { stores: [store], [Symbol.asyncDispose]: dispose } = await relayers(1);
  return Object.assign(store, { [Symbol.asyncDispose]: dispose });
});

Deno.test("PgBlobStore: ids are the SQLite store's, the SHA-256 of the bytes in unpadded base64url", async () => {
  await using shared = await relayers(1);
  const [store] = shared.stores;
  const bytes = enc("ciphertext");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const expected = digest.toBase64({ alphabet: "base64url", omitPadding: true });
  assert.equal(await store.put(bytes, meta), expected);
  assert.equal(await BlobPlaces.idOf(bytes), expected);
  assert.equal(store.name, "postgres");
});

Deno.test("PgBlobStore: the database holds no owner, namespace or vector in clear", async () => {
  await using shared = await relayers(1);
  const [store] = shared.stores;
  const sealedVector = "c2VhbGVk_-0";
  await store.put(enc("sealed bytes"), { ...meta, sealedVector });
  const [row] = await shared.databases[0].sql`select * from svc_blobs_objects`;
  const dump = JSON.stringify(
    row,
    (_, value) => value instanceof Uint8Array ? new TextDecoder().decode(value) : value,
  );
  assert.doesNotMatch(dump, /0xowner|health/);
  assert.deepEqual(Object.keys(row).sort(), [
    "bytes",
    "created_at",
    "id",
    "memory_id",
    "place",
    "sealed_attributes",
    "sealed_vector",
  ]);
  assert.equal(row.sealed_vector, sealedVector);
  assert.equal(row.place.byteLength, 32);
  // Another secret files the same namespace elsewhere: the hash is keyed.
  const other = await PgBlobStore.open({
    database: shared.databases[0],
    secret: crypto.getRandomValues(new Uint8Array(32)),
  });
  assert.deepEqual(await other.list(meta.owner, meta.namespace), []);
  assert.equal((await store.list(meta.owner, meta.namespace)).length, 1);
});

Deno.test("PgBlobStore: the same bytes put on two relayers at once belong to one memory", async () => {
  await using shared = await relayers(2);
  const [a, b] = shared.stores;
  for (let round = 0; round < 20; round++) {
    const bytes = enc(`ciphertext ${round}`);
    const outcomes = await Promise.allSettled([
      a.put(bytes, { ...meta, memoryId: `a${round}`, createdAt: round }),
      b.put(bytes, { ...meta, memoryId: `b${round}`, createdAt: round }),
      a.put(bytes, { ...meta, memoryId: `a${round}`, createdAt: round }),
      b.put(bytes, { ...meta, memoryId: `b${round}`, createdAt: round }),
    ]);
    // One memory's two puts are stored (the same blob); the other's are refused.
    const stored = outcomes.flatMap((o) => o.status === "fulfilled" ? [o.value] : []);
    assert.equal(stored.length, 2);
    assert.equal(new Set(stored).size, 1);
    const [held] = await a.list(meta.owner, meta.namespace, { limit: 1 });
    const winner = outcomes.findIndex((o) => o.status === "fulfilled");
    assert.equal(held.meta.memoryId, `${winner % 2 ? "b" : "a"}${round}`);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") {
        assert.ok(outcome.reason instanceof SvcError && outcome.reason.code === "conflict");
      }
    }
  }
  const [{ count }] = await shared.databases[0]
    .sql`select count(*)::int as count from svc_blobs_objects`;
  assert.equal(count, 20);
});

Deno.test("PgBlobStore: what one relayer puts or deletes, another reads at once", async () => {
  await using shared = await relayers(2);
  const [a, b] = shared.stores;
  const blobId = await a.put(enc("written on a"), meta);
  assert.deepEqual(await b.get(blobId), enc("written on a"));
  assert.deepEqual(await b.list(meta.owner, meta.namespace), [{ blobId, meta }]);
  await b.delete(blobId);
  assert.equal(await a.get(blobId), null);
  assert.deepEqual(await a.list(meta.owner, meta.namespace), []);
});

Deno.test("PgBlobStore: list is newest first, ties by id, and honours its limit", async () => {
  await using shared = await relayers(1);
  const [store] = shared.stores;
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    ids.push(await store.put(enc(`b${i}`), { ...meta, memoryId: `m${i}`, createdAt: i % 4 }));
  }
  const listed = await store.list(meta.owner, meta.namespace);
  const expected = ids.map((id, i) => ({ id, at: i % 4 }))
    .sort((x, y) => y.at - x.at || (x.id < y.id ? 1 : -1)).map((x) => x.id);
  assert.deepEqual(listed.map((entry) => entry.blobId), expected);
  assert.deepEqual(
    (await store.list(meta.owner, meta.namespace, { limit: 5 })).map((e) => e.blobId),
    expected.slice(0, 5),
  );
  assert.deepEqual(await store.list(meta.owner, meta.namespace, { limit: 0 }), []);
  assert.deepEqual(await store.list(meta.owner, "other"), []);
});

Deno.test("PgBlobStore: a database that is gone is a 503 that names neither the URL nor the data", async () => {
  const shared = await relayers(1);
  const [store] = shared.stores;
  const blobId = await store.put(enc("kept"), meta);
  await shared[Symbol.asyncDispose]();
  for (
    const call of [
      () => store.put(enc("late"), meta),
      () => store.get(blobId),
      () => store.list(meta.owner, meta.namespace),
      () => store.delete(blobId),
    ]
  ) {
    await assert.rejects(call, (error: Error & { code?: string }) => {
      assert.equal(error.code, "backend_unavailable");
      assert.doesNotMatch(error.message, /postgres:\/\/|0xowner|health/);
      return true;
    });
  }
});

Deno.test("PgBlobStore: a write to a read-only database (a standby) is said as such", async () => {
  await using readOnly = await readOnlyDatabase();
  const store = await PgBlobStore.open({ database: readOnly.database, secret: SECRET });
  await assert.rejects(store.put(enc("sealed bytes"), meta), (error: SvcError) => {
    assert.equal(error.code, "backend_unavailable");
    assert.match(
      error.message,
      /^Cannot [^:]+: the database is read-only \(a standby, or default_transaction_read_only is on\); SVC_DATABASE_URL must name the primary$/,
    );
    return true;
  });
});
